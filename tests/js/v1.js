// tests/js/v1.js - OpenPAI's JavaScript SDK (@microsoft/openpai-js-sdk),
// its v1 client (the API of OpenPAI v0.x), against the local cluster:
// node v1.js URI USER PASSWORD. Every call the SDK makes of a v0.17
// server: token (a form), submit (the config as a form with bracket
// keys), list, get until SUCCEEDED, getFrameworkInfo (no token), ssh
// info, and a second job stopped (execute STOP) until STOPPED. Prints
// one line per step; exits 1 at the first that fails.
'use strict';
const assert = require('assert');
const { PAIV1 } = require('@microsoft/openpai-js-sdk');

const [uri, user, password] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function job(name, command) {
    return {
        jobName: name,
        image: 'debian',
        jobEnvs: { GREETING: 'hello' },
        taskRoles: [{
            name: 'main', taskNumber: 1, cpuNumber: 1, memoryMB: 256,
            gpuNumber: 0, command,
            portList: [{ label: 'http', beginAt: 0, portNumber: 1 }],
        }],
    };
}

async function until(client, name, state) {
    for (let i = 0; i < 120; i++) {
        const info = await client.job.get(user, name);
        if (info.jobStatus.state === state)
            return info;
        assert.ok(!['FAILED', 'SUCCEEDED', 'STOPPED'].includes(info.jobStatus.state) ||
            info.jobStatus.state === state, `${name} ended ${info.jobStatus.state}`);
        await sleep(250);
    }
    throw new Error(`${name} never ${state}`);
}

async function main() {
    const client = new PAIV1.OpenPAIClient({
        rest_server_uri: uri, username: user, password, https: false,
    });
    const token = await client.token();
    assert.ok(typeof token === 'string' && token.length > 0);
    console.log('v1 token ok');

    const sub = await client.job.submit(user, job('js1', 'echo $GREETING from js1'));
    assert.ok(sub, 'submit answered');
    console.log('v1 submit ok');

    const list = await client.job.list(`username=${user}`);
    assert.ok(list.some((j) => j.name === 'js1'), 'js1 is listed');
    console.log('v1 list ok');

    const done = await until(client, 'js1', 'SUCCEEDED');
    assert.strictEqual(done.taskRoles.main.taskStatuses.length, 1);
    console.log('v1 get until SUCCEEDED ok');

    const fw = await client.job.getFrameworkInfo(user, 'js1');
    assert.strictEqual(fw.jobStatus.state, 'SUCCEEDED');
    console.log('v1 getFrameworkInfo ok');

    // the SDK's getConfig asks a path no v0.17 server has: 404, as there
    await assert.rejects(client.job.getConfig(user, 'js1'),
        (e) => e.statusCode === 404);
    console.log('v1 getConfig: 404 as on a real server ok');

    const ssh = await client.job.getSshInfo(user, 'js1');
    assert.ok(ssh && typeof ssh === 'object', 'ssh info');
    console.log('v1 ssh info ok');

    await client.job.submit(user, job('js2', 'sleep 300'));
    await until(client, 'js2', 'RUNNING');
    await client.job.execute(user, 'js2', 'STOP');
    await until(client, 'js2', 'STOPPED');
    console.log('v1 stop until STOPPED ok');
}

main().catch((e) => {
    console.error('v1 FAILED:', e && (e.message || e));
    process.exit(1);
});
