// tests/js/v2.js - OpenPAI's JavaScript SDK, its v2 client (the API of
// OpenPAI v1.x), against the local cluster: node v2.js URI USER PASSWORD.
// Basic login (a form), cluster info, virtual clusters, the user,
// createJob (YAML), listJobs, getJob until SUCCEEDED, getJobConfig (read
// back as YAML), getTask, getTaskLogs and the log it points to, and
// updateJobExecutionType STOP on a second job until STOPPED. Prints one
// line per step; exits 1 at the first that fails.
'use strict';
const assert = require('assert');
const axios = require('axios');
const { PAIV2 } = require('@microsoft/openpai-js-sdk');

const [uri, user, password] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function job(name, command) {
    return {
        protocolVersion: 2,
        name,
        type: 'job',
        prerequisites: [{ name: 'image', type: 'dockerimage', uri: 'debian' }],
        parameters: { greeting: 'hello' },
        taskRoles: {
            main: {
                instances: 1,
                dockerImage: 'image',
                resourcePerInstance: { cpu: 1, memoryMB: 256, gpu: 0 },
                commands: [command],
            },
        },
        defaults: { virtualCluster: 'default' },
    };
}

async function until(client, name, state) {
    for (let i = 0; i < 120; i++) {
        const info = await client.job.getJob(user, name);
        if (info.jobStatus.state === state)
            return info;
        assert.ok(!['FAILED', 'SUCCEEDED', 'STOPPED'].includes(info.jobStatus.state),
            `${name} ended ${info.jobStatus.state}`);
        await sleep(250);
    }
    throw new Error(`${name} never ${state}`);
}

async function main() {
    const client = new PAIV2.OpenPAIClient({
        rest_server_uri: uri, username: user, password, https: false,
    });
    const login = await client.authn.basicLogin(user, password);
    assert.ok(login && typeof login.token === 'string' && login.token.length > 0,
        JSON.stringify(login));
    assert.strictEqual(login.user, user);
    console.log('v2 basicLogin ok');

    // as a v1.x cluster answers (the SDK's users and the web portal
    // take k8s to mean these routes), and what it is besides
    const info = await client.api.getClusterInfo();
    assert.strictEqual(info.launcherType, 'k8s', JSON.stringify(info));
    assert.ok(info.paictl && info.paictl.extensions.includes('wait'),
        JSON.stringify(info));
    console.log('v2 getClusterInfo ok');

    const vcs = await client.virtualCluster.listVirtualClusters();
    assert.ok(vcs && vcs.default, JSON.stringify(vcs));
    const vc = await client.virtualCluster.getVirtualCluster('default');
    assert.ok(vc && typeof vc === 'object', JSON.stringify(vc));
    console.log('v2 virtual clusters ok');

    const me = await client.user.getUser(user);
    assert.strictEqual(me.username, user, JSON.stringify(me));
    console.log('v2 user.getUser ok');

    await client.job.createJob(job('js3', 'echo <% $parameters.greeting %> from js3'));
    console.log('v2 createJob ok');

    const list = await client.job.listJobs();
    assert.ok(list.some((j) => j.name === 'js3'), JSON.stringify(list));
    console.log('v2 listJobs ok');

    const done = await until(client, 'js3', 'SUCCEEDED');
    const attempt = done.jobStatus.retries || 0;
    console.log('v2 getJob until SUCCEEDED ok');

    const config = await client.job.getJobConfig(user, 'js3');
    assert.strictEqual(config.name, 'js3');
    assert.deepStrictEqual(config.taskRoles.main.commands,
        ['echo <% $parameters.greeting %> from js3']);
    console.log('v2 getJobConfig ok');

    const task = await client.job.getTask(user, 'js3', attempt, 'main', 0);
    assert.ok(task && task.taskIndex === 0, JSON.stringify(task));
    console.log('v2 getTask ok');

    const logs = await client.job.getTaskLogs(user, 'js3', attempt, 'main', 0,
        task.attemptId || 0);
    const loc = (logs.locations || []).find((l) => l.name === 'stdout');
    assert.ok(loc, JSON.stringify(logs));
    const out = await axios.get(new URL(loc.uri, uri).href, { responseType: 'text' });
    assert.ok(/hello from js3/.test(out.data), out.data);
    console.log('v2 getTaskLogs and its log ok');

    // the SDK's tailMode is no parameter of a real server (tail-mode is):
    // ignored there, ignored here
    const tail = await client.job.getTaskLogs(user, 'js3', attempt, 'main', 0,
        task.attemptId || 0, true);
    assert.ok(tail.locations.every((l) => !/tail-mode/.test(l.uri)),
        JSON.stringify(tail));
    console.log('v2 getTaskLogs tailMode: ignored as on a real server ok');

    await client.job.createJob(job('js4', 'sleep 300'));
    await until(client, 'js4', 'RUNNING');
    await client.job.updateJobExecutionType(user, 'js4', 'STOP');
    await until(client, 'js4', 'STOPPED');
    console.log('v2 updateJobExecutionType STOP until STOPPED ok');
}

main().catch((e) => {
    console.error('v2 FAILED:', e && (e.message || e), e && e.response && e.response.data
        ? JSON.stringify(e.response.data) : '');
    process.exit(1);
});
