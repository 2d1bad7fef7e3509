#!/usr/bin/env node
// check.js - what OpenPAI v1.8.0's rest-server does with a protocol-v2 job
// posted to POST /api/v2/jobs (text/yaml), offline, with the npm libraries
// the server runs (js-yaml 3.13.1, ajv 6.10.0, mustache 2.3.2, lodash
// 4.17.21; js-yaml 3.14.0 for the write-merger). An oracle for paictl's C
// validator and the comparison point of bench/v2.sh.
//
//   node check.js [--scheduler hived|default] [--no-body-limit] [--basename] FILE...
//
// One line per file: PATH <TAB> accept|refuse <TAB> reason. The reason is
// "ok" or "<step>: <first error>"; where the server's code would throw
// something it does not mean to (a 500), the reason is "crash: <step>: ...".
// Exit status: 0 when every file was judged (whatever the verdicts), 2 on a
// usage error. The steps follow /work/shared/reference/protocol-v2-rules.md;
// the comments cite its rule numbers. Our own code: the schema is written
// anew, and the server's checks are redone with the same JavaScript
// operations (`in`, Object.keys, for-of, template strings), because its
// crashes come from exactly those operations on odd input.
//
// Cluster state that cannot be known offline is assumed as the rules say:
// every skuType is configured and allowed (cells with GPU, CPU and memory),
// quota suffices, the user may use the VC, named storages exist, no job of
// the same name exists. Each file is judged as by a freshly started server
// (a fresh mustache parse cache per file).

// No 'use strict': the server's modules run in sloppy mode, where writing a
// property on a primitive is ignored instead of throwing.

const fs = require('fs');
const path = require('path');
const Module = require('module');

// The libraries: $V2_SERVER_MODULES, else build/v2-server next to bench/,
// else this directory, else NODE_PATH.
function libraryLoader() {
  const homes = [];
  if (process.env.V2_SERVER_MODULES) homes.push(process.env.V2_SERVER_MODULES);
  homes.push(path.resolve(__dirname, '..', '..', 'build', 'v2-server'));
  homes.push(__dirname);
  for (const home of homes) {
    if (fs.existsSync(path.join(home, 'node_modules', 'js-yaml'))) {
      return Module.createRequire(path.join(home, 'package.json'));
    }
  }
  return require;
}
const load = libraryLoader();
const yaml = load('js-yaml'); // rest-server
const mergerYaml = load('js-yaml-3.14.0'); // database-controller
const Ajv = load('ajv');
const mustache = load('mustache');
const _ = load('lodash');

const PINNED = {
  'js-yaml': '3.13.1',
  'js-yaml-3.14.0': '3.14.0',
  ajv: '6.10.0',
  mustache: '2.3.2',
  lodash: '4.17.21',
};
for (const [name, want] of Object.entries(PINNED)) {
  const have = load(`${name}/package.json`).version;
  if (have !== want) {
    process.stderr.write(`check.js: warning: ${name} is ${have}, the server pins ${want}\n`);
  }
}

// ---------------------------------------------------------------- schema (rule 3)

const ROLE_KEY = '^[a-zA-Z_][a-zA-Z0-9_]*$';
const jobName = () => ({ type: 'string', pattern: '^[a-zA-Z0-9_-]+$', maxLength: 255 });
const protocolVersion = () => ({ enum: ['2', 2] });
const strings = (min) => {
  const s = { type: 'array', items: { type: 'string' } };
  if (min) s.minItems = min;
  return s;
};
const int = () => ({ type: 'integer' });

// The fields every protocol object shares (the server's base.json).
function identity() {
  return {
    protocolVersion: protocolVersion(),
    name: jobName(),
    version: { type: ['string', 'number'] },
    contributor: { type: 'string' },
    description: { type: 'string' },
  };
}

// One kind of prerequisite: the shared fields plus its own (the server
// merges them with $merge; the result is this flat schema).
function prerequisiteKind(kinds, own, required, open) {
  return {
    type: 'object',
    properties: Object.assign(identity(), { type: { type: 'string', enum: kinds } }, own),
    required,
    additionalProperties: open,
  };
}

const prerequisiteSchema = {
  type: 'object',
  oneOf: [
    prerequisiteKind(
      ['script', 'output'],
      { plugin: { type: 'string' }, require: strings(), uri: { type: 'string' } },
      ['name', 'type'],
      true,
    ),
    prerequisiteKind(
      ['data'],
      { plugin: { type: 'string' }, require: strings(), uri: strings() },
      ['name', 'type'],
      true,
    ),
    prerequisiteKind(
      ['dockerimage'],
      {
        auth: {
          type: 'object',
          properties: {
            username: { type: 'string' },
            password: { type: 'string' },
            registryuri: { type: 'string' },
          },
        },
        uri: { type: 'string' },
      },
      ['name', 'type', 'uri'],
      false,
    ),
  ],
};

const roleSchema = {
  type: 'object',
  properties: {
    protocolVersion: protocolVersion(),
    instances: { type: 'integer', minimum: 1 },
    completion: {
      type: 'object',
      properties: {
        minFailedInstances: { type: ['integer', 'null'] },
        minSucceededInstances: { type: ['integer', 'null'] },
      },
      additionalProperties: false,
    },
    taskRetryCount: int(),
    prerequisites: strings(),
    dockerImage: { type: 'string' },
    data: { type: 'string' },
    output: { type: 'string' },
    script: { type: 'string' },
    extraContainerOptions: {
      type: 'object',
      properties: {
        shmMB: int(),
        // The server's schema puts `additionalProperties: false` inside
        // `properties`: a key literally named additionalProperties is
        // refused, every other key passes. Kept as it is.
        additionalProperties: false,
      },
    },
    resourcePerInstance: {
      type: 'object',
      properties: {
        cpu: int(),
        memoryMB: int(),
        gpu: int(),
        // no `type`: a number, a string or a list passes here
        ports: {
          patternProperties: { [ROLE_KEY]: int() },
          minProperties: 1,
          additionalProperties: false,
        },
      },
      required: ['cpu', 'memoryMB', 'gpu'],
      additionalProperties: false,
    },
    commands: strings(1),
  },
  required: ['dockerImage', 'resourcePerInstance', 'commands'],
  additionalProperties: false,
};

const deploymentSchema = {
  type: 'object',
  properties: {
    protocolVersion: protocolVersion(),
    name: jobName(),
    // no `type` either
    taskRoles: {
      patternProperties: {
        [ROLE_KEY]: {
          type: 'object',
          properties: { preCommands: strings(1), postCommands: strings(1) },
          additionalProperties: false,
        },
      },
      minProperties: 1,
      additionalProperties: false,
    },
  },
  required: ['name', 'taskRoles'],
};

const jobSchema = {
  type: 'object',
  properties: Object.assign(identity(), {
    type: { type: 'string', enum: ['job'] },
    prerequisites: { type: 'array', items: prerequisiteSchema, minItems: 1 },
    parameters: { type: 'object', additionalProperties: true },
    secrets: { type: 'object', additionalProperties: true },
    jobRetryCount: { type: 'integer', minimum: 0 },
    // no `type`: a list of roles, a number or null passes here
    taskRoles: {
      patternProperties: { [ROLE_KEY]: roleSchema },
      minProperties: 1,
      additionalProperties: false,
    },
    deployments: { type: 'array', items: deploymentSchema, minItems: 1 },
    defaults: { type: 'object', properties: { deployment: { type: 'string' } } },
    extras: { type: 'object' },
  }),
  required: ['protocolVersion', 'name', 'type', 'taskRoles'],
  additionalProperties: false,
};

const validateJob = new Ajv({ allErrors: true }).compile(jobSchema);

// ---------------------------------------------------------- hived schema (rule 6)

const nullableString = () => ({ type: ['string', 'null'], default: null });
const hivedSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    extras: {
      type: 'object',
      additionalProperties: true,
      properties: {
        hivedScheduler: {
          type: 'object',
          properties: {
            jobPriorityClass: { enum: ['prod', 'test', 'oppo'] },
            taskRoles: {
              patternProperties: {
                '^[A-Za-z0-9._~]+$': {
                  type: 'object',
                  additionalProperties: true,
                  properties: {
                    skuType: nullableString(),
                    pinnedCellId: nullableString(),
                    affinityGroupName: nullableString(),
                  },
                },
              },
              minProperties: 1,
              additionalProperties: false,
            },
          },
        },
      },
    },
  },
};
const validateHived = new Ajv({ allErrors: true, useDefaults: true }).compile(hivedSchema);

// ------------------------------------------------------------------ verdicts

// What the server answers with a 4xx on purpose (its createError).
class Refusal extends Error {
  constructor(step, message) {
    super(message);
    this.step = step;
  }
}

function ajvFirst(errors) {
  const e = errors[0];
  let msg = `${e.dataPath || '(top)'} ${e.message}`;
  if (e.params && e.params.additionalProperty !== undefined) {
    msg += ` '${e.params.additionalProperty}'`;
  } else if (e.params && e.params.allowedValues) {
    msg += ` ${JSON.stringify(e.params.allowedValues)}`;
  }
  return errors.length > 1 ? `${msg} (+${errors.length - 1} more)` : msg;
}

// ---------------------------------------------------- reference checks (rule 4)

const PREREQUISITE_KINDS = ['script', 'output', 'data', 'dockerimage'];
const ROLE_REFERENCES = ['script', 'output', 'data', 'dockerImage'];

function checkReferences(job) {
  const byKind = {};
  const known = new Set();
  for (const kind of PREREQUISITE_KINDS) byKind[kind] = {};
  if ('prerequisites' in job) {
    for (const p of job.prerequisites) {
      if (Object.prototype.hasOwnProperty.call(byKind[p.type], p.name)) {
        throw new Refusal('protocol', `Duplicate ${p.type} prerequisites ${p.name}.`);
      }
      byKind[p.type][p.name] = p;
      known.add(p.name);
    }
  }
  job.prerequisites = byKind;

  const deployments = {};
  if ('deployments' in job) {
    for (const d of job.deployments) {
      if (Object.prototype.hasOwnProperty.call(deployments, d.name)) {
        throw new Refusal('protocol', `Duplicate deployments ${d.name}.`);
      }
      deployments[d.name] = d;
    }
  }
  job.deployments = deployments;

  const roles = job.taskRoles;
  for (const name of Object.keys(roles)) {
    if ('prerequisites' in roles[name]) {
      for (const wanted of roles[name].prerequisites) {
        if (!known.has(wanted)) {
          throw new Refusal('protocol', `Prerequisite ${wanted} does not exist.`);
        }
      }
    }
  }
  for (const name of Object.keys(roles)) {
    for (const field of ROLE_REFERENCES) {
      if (field in roles[name] && !(roles[name][field] in byKind[field.toLowerCase()])) {
        throw new Refusal('protocol', `Prerequisite ${roles[name][field]} does not exist.`);
      }
    }
  }
  if ('defaults' in job && 'deployment' in job.defaults && !(job.defaults.deployment in deployments)) {
    throw new Refusal('protocol', `Default deployment ${job.defaults.deployment} does not exist.`);
  }
}

// ---------------------------------------------------------------- render (rule 5)

// The server's render: only text and plain names count; a name that looks
// up to null/undefined is put back as `<% name %>`.
function renderText(writer, template, view) {
  const tokens = writer.parse(template, ['<%', '%>']);
  const context = new mustache.Context(view);
  let out = '';
  for (const token of tokens) {
    if (token[0] === 'text') {
      out += token[1];
    } else if (token[0] === 'name') {
      const name = token[1].replace(/\[(\d+)\]/g, '.$1');
      const value = context.lookup(name);
      out += value != null ? value : `<% ${name} %>`;
    }
  }
  return out.trim();
}

function render(job) {
  // one parse cache per file, as a freshly started server has
  const writer = new mustache.Writer();
  const images = job.prerequisites.dockerimage;
  for (const name of Object.keys(images)) {
    if ('auth' in images[name]) {
      const auth = images[name].auth;
      for (const key of Object.keys(auth)) {
        auth[key] = renderText(writer, auth[key], { $secrets: job.secrets });
      }
    }
  }
  let deployment = null;
  if ('defaults' in job && 'deployment' in job.defaults) {
    deployment = job.deployments[job.defaults.deployment];
  }
  const roles = job.taskRoles;
  for (const name of Object.keys(roles)) {
    let lines = roles[name].commands;
    if (deployment != null && name in deployment.taskRoles) {
      const extra = deployment.taskRoles[name];
      if ('preCommands' in extra) lines = extra.preCommands.concat(lines);
      if ('postCommands' in extra) lines = lines.concat(extra.postCommands);
    }
    const text = lines.map((line) => line.trim()).join('\n');
    roles[name].entrypoint = renderText(writer, text, {
      $parameters: job.parameters,
      $script: job.prerequisites.script[roles[name].script],
      $output: job.prerequisites.output[roles[name].output],
      $data: job.prerequisites.data[roles[name].data],
    });
  }
}

// ----------------------------------------------------------------- hived (rule 6)

// Assumed cluster: one SKU type with GPU, CPU and memory; any skuType a job
// names is configured too, and the VC allows it.
const UNIT = { gpu: 1, cpu: 8, memory: 40960 };
const resourceUnits = new Proxy(
  {},
  {
    has: (t, k) => typeof k === 'string',
    get: (t, k) => (typeof k === 'string' ? UNIT : undefined),
  },
);
const cellUnits = { 'DEFAULT-SKU': UNIT };
const PRIORITIES = { crit: 120, prod: 100, test: 10, oppo: -1 };
const priorityOf = (cls = 'test') => (cls in PRIORITIES ? PRIORITIES[cls] : null);

function hived(job, user) {
  if (!validateHived(job)) {
    throw new Refusal('hived-schema', ajvFirst(validateHived.errors));
  }
  const conf = _.get(job, 'extras.hivedScheduler', null);
  const oppo = _.get(conf, 'jobPriorityClass') === 'oppo';
  const gang = _.get(job, 'extras.gangAllocation', true) === true;
  const vc = _.get(job, 'defaults.virtualCluster', 'default');
  const groups = {};
  const roles = job.taskRoles;

  for (const name of Object.keys(roles)) {
    const spec = _.pickBy(
      {
        virtualCluster: vc,
        priority: priorityOf(_.get(conf, 'jobPriorityClass')),
        pinnedCellId: _.get(conf, `taskRoles.${name}.pinnedCellId`, null),
        leafCellType: _.get(conf, `taskRoles.${name}.skuType`, null),
        leafCellNumber: _.get(conf, `taskRoles.${name}.skuNumber`, 0),
        gangReleaseEnable: _.get(conf, 'gangReleaseEnable'),
        lazyPreemptionEnable: _.get(conf, 'lazyPreemptionEnable'),
        ignoreK8sSuggestedNodes: _.get(conf, 'ignoreK8sSuggestedNodes'),
        affinityGroup: null,
      },
      (v) => v !== undefined,
    );
    const perCell = {};
    for (const t of ['gpu', 'cpu', 'memory']) {
      perCell[t] =
        spec.leafCellType != null
          ? resourceUnits[spec.leafCellType][t]
          : Math.min(...Object.values(oppo ? { u: UNIT } : cellUnits).map((u) => u[t]));
    }
    const { gpu = 0, cpu, memoryMB } = roles[name].resourcePerInstance;
    const lacking =
      perCell.gpu === 0 && gpu > 0 ? ['GPU', gpu]
        : perCell.cpu === 0 && cpu > 0 ? ['CPU', cpu]
          : perCell.memory === 0 && memoryMB > 0 ? ['memory', memoryMB] : null;
    if (lacking) {
      throw new Refusal('hived', `Taskrole ${name} requests ${lacking[1]} ${lacking[0]}, but SKU does not configure ${lacking[0]}.`);
    }
    spec.leafCellNumber = Math.max(
      gpu === 0 ? 0 : Math.ceil(gpu / perCell.gpu),
      cpu === 0 ? 0 : Math.ceil(cpu / perCell.cpu),
      memoryMB === 0 ? 0 : Math.ceil(memoryMB / perCell.memory),
    );
    roles[name].hivedPodSpec = spec;
  }

  if (conf != null) {
    for (const name of Object.keys(conf.taskRoles || {})) {
      if (!(name in roles)) {
        throw new Refusal('hived', `Taskrole ${name} does not exist.`);
      }
      const sku = roles[name].hivedPodSpec.leafCellType;
      const cell = roles[name].hivedPodSpec.pinnedCellId;
      if (sku != null && cell != null) {
        throw new Refusal('hived', `Taskrole ${name} has both skuType and pinnedCellId, only one is allowed.`);
      }
      // the server also refuses a skuType the cluster does not configure,
      // or (unless oppo) one the VC does not allow: assumed never
      if (sku != null && !(sku in resourceUnits)) {
        throw new Refusal('hived', `Taskrole ${name} has unknown skuType ${sku}.`);
      }
      const group = conf.taskRoles[name].affinityGroupName;
      if (group != null) {
        if (group in groups) {
          if (sku !== groups[group].skuType || cell !== groups[group].pinnedCellId) {
            throw new Refusal('hived', `AffinityGroup ${group} has inconsistent skuType or pinnedCellId.`);
          }
        } else {
          groups[group] = { skuType: sku, pinnedCellId: cell, affinityTaskList: [] };
        }
        groups[group].affinityTaskList.push({
          podNumber: roles[name].instances,
          leafCellNumber: roles[name].hivedPodSpec.leafCellNumber,
        });
      }
    }
  }

  let gangGroup = null;
  if (!Object.keys(groups).length && gang) {
    gangGroup = {
      affinityTaskList: Object.keys(roles).map((name) => ({
        podNumber: roles[name].instances,
        leafCellNumber: roles[name].hivedPodSpec.leafCellNumber,
      })),
    };
  }
  for (const name of Object.keys(roles)) {
    const group = _.get(conf, `taskRoles.${name}.affinityGroupName`);
    if (group != null) {
      roles[name].hivedPodSpec.affinityGroup = {
        name: `${user}~${job.name}/${group}`,
        members: groups[group].affinityTaskList,
      };
    }
    if (gangGroup != null) {
      roles[name].hivedPodSpec.affinityGroup = {
        name: `${user}~${job.name}/default`,
        members: gangGroup.affinityTaskList,
      };
    }
  }
  // quota: assumed sufficient
}

// ------------------------------------------------------------- job model (rule 7)

const LIMIT_KEY = 'nvidia.com/gpu';
const DEVICE_ENVS = ['NVIDIA_VISIBLE_DEVICES'];

function frameworkEnv(frameworkName, job, vc) {
  const roles = job.taskRoles;
  const names = Object.keys(roles);
  const env = {
    PAI_FRAMEWORK_NAME: frameworkName,
    PAI_TASK_ROLE_COUNT: names.length,
    PAI_TASK_ROLE_LIST: names.join(','),
    PAI_VIRTUAL_CLUSTER: vc,
  };
  let tasks = 0;
  for (const name of names) {
    const r = roles[name];
    tasks += r.instances || 1;
    env[`PAI_TASK_ROLE_TASK_COUNT_${name}`] = r.instances || 1;
    env[`PAI_RESOURCE_${name}`] = [
      r.resourcePerInstance.gpu,
      r.resourcePerInstance.cpu,
      r.resourcePerInstance.memoryMB,
      r.extraContainerOptions && 'shmMB' in r.extraContainerOptions ? r.extraContainerOptions.shmMB : 0,
    ].join(',');
    env[`PAI_MIN_FAILED_TASK_COUNT_${name}`] =
      r.completion && 'minFailedInstances' in r.completion && r.completion.minFailedInstances
        ? r.completion.minFailedInstances : 1;
    env[`PAI_MIN_SUCCEEDED_TASK_COUNT_${name}`] =
      r.completion && 'minSucceededInstances' in r.completion && r.completion.minSucceededInstances
        ? r.completion.minSucceededInstances : r.instances || 1;
  }
  env.PAI_TASKS_NUM = tasks;
  return Object.keys(env).map((k) => ({ name: k, value: `${env[k]}` }));
}

function taskRoleSpec(name, job, envList, withHived) {
  const r = job.taskRoles[name];
  const ports = r.resourcePerInstance.ports || {};
  for (const p of ['ssh', 'http']) {
    if (!(p in ports)) ports[p] = 1;
  }
  const portSpec = {};
  for (const p of Object.keys(ports)) portSpec[p] = { count: ports[p] };
  let shmMB = 512;
  if ('extraContainerOptions' in r) shmMB = r.extraContainerOptions.shmMB || 512;
  const infiniband = Boolean('extraContainerOptions' in r && r.extraContainerOptions.infiniband);
  let maxRetryCount = 0;
  if ('extras' in job && job.extras.gangAllocation === false) maxRetryCount = r.taskRetryCount || 0;
  const image = job.prerequisites.dockerimage[r.dockerImage].uri;
  const limits = {
    cpu: r.resourcePerInstance.cpu,
    memory: `${r.resourcePerInstance.memoryMB}Mi`,
    [LIMIT_KEY]: r.resourcePerInstance.gpu,
  };
  const spec = {
    name: name.toLowerCase().replace(/[^a-z0-9]/g, ''),
    taskNumber: r.instances || 1,
    maxRetryCount,
    annotations: { 'rest-server/port-scheduling-spec': JSON.stringify({ ports: portSpec }) },
    env: envList.slice(),
    image,
    limits,
    infiniband,
    volumes: [{ name: 'dshm', sizeLimit: `${shmMB}Mi` }],
    pullSecrets: job.prerequisites.dockerimage[r.dockerImage].auth ? ['regcred'] : [],
  };
  if ('extras' in job && job.extras.storages) {
    for (const s of job.extras.storages) {
      if (!s.name) continue;
      spec.volumes.push({ name: `${s.name}-volume`, mountPath: s.mountPath || `/mnt/${s.name}`, claimName: `${s.name}` });
    }
  }
  const c = r.completion;
  spec.minFailedTaskCount = c && 'minFailedInstances' in c && c.minFailedInstances ? c.minFailedInstances : 1;
  spec.minSucceededTaskCount = c && 'minSucceededInstances' in c && c.minSucceededInstances
    ? c.minSucceededInstances : spec.taskNumber;
  if (r.resourcePerInstance.gpu === 0) {
    for (const e of DEVICE_ENVS) spec.env.push({ name: e, value: 'none' });
  }
  if (withHived) {
    spec.schedulerName = `hivedscheduler-ds-${r.hivedPodSpec.virtualCluster}`;
    delete limits[LIMIT_KEY];
    // throws on an undefined anywhere in the spec: a group member
    // without `instances` (rule 6)
    spec.annotations['hivedscheduler.microsoft.com/pod-scheduling-spec'] = yaml.safeDump(r.hivedPodSpec);
  }
  return spec;
}

function jobModel(job, raw, user, withHived) {
  const frameworkName = `${user}~${job.name}`;
  const vc = 'defaults' in job && job.defaults.virtualCluster != null ? job.defaults.virtualCluster : 'default';
  // deprecated storage plugin
  if ('extras' in job && !job.extras.storages && 'com.microsoft.pai.runtimeplugin' in job.extras) {
    for (const plugin of job.extras['com.microsoft.pai.runtimeplugin']) {
      if (plugin.plugin === 'teamwise_storage') {
        if ('parameters' in plugin && plugin.parameters.storageConfigNames) {
          job.extras.storages = plugin.parameters.storageConfigNames.map((n) => ({ name: n }));
        } else {
          job.extras.storages = [];
        }
      }
    }
  }
  if ('extras' in job && job.extras.storages) {
    if (job.extras.storages.length === 0) {
      // the user's default storages: assumed none
    } else {
      for (const s of job.extras.storages) {
        if (!s.name) continue;
        s.share = true; // every named storage exists
      }
    }
    for (const s of job.extras.storages) {
      if (!s.name) continue;
      s.readOnly = false;
    }
  }
  const description = {
    name: frameworkName,
    config: maskSecrets(raw),
    retry: { fancy: job.jobRetryCount !== -2, max: job.jobRetryCount || 0 },
    taskRoles: [],
  };
  const envList = frameworkEnv(frameworkName, job, vc);
  let gpus = 0;
  for (const name of Object.keys(job.taskRoles)) {
    gpus += job.taskRoles[name].resourcePerInstance.gpu * job.taskRoles[name].instances;
    description.taskRoles.push(taskRoleSpec(name, job, envList, withHived));
  }
  description.totalGpuNumber = `${gpus}`;
  const auths = Object.values(job.prerequisites.dockerimage)
    .filter((d) => d.auth != null)
    .map((d) => d.auth);
  const creds = {};
  for (const a of auths) {
    const { username = '', password = '', registryuri = 'https://index.docker.io/v1/' } = a;
    creds[registryuri] = Buffer.from(`${username}:${password}`).toString('base64');
  }
  if (job.secrets) yaml.safeDump(job.secrets);
  // priority classes are on (the v1.8.0 default); with hived the job's
  // priority comes from the first role's pod spec
  let priority = 0;
  if (withHived) {
    priority = parseInt(Object.values(job.taskRoles)[0].hivedPodSpec.priority, 10);
  }
  JSON.stringify({ description, creds, priority });
  return description;
}

// protocolSecret.mask: `secrets:` up to the next line that starts with a
// word character becomes `secrets: "******"`.
function maskSecrets(text) {
  const masked = `${text}\nZ`.replace(/(^secrets:)[^]*?(^\w)/m, '$1 "******"\n$2');
  return masked.slice(0, -2);
}

// ---------------------------------------------------------------- one file

const BODY_LIMIT = 102400; // body-parser's 100kb

function judge(bytes, opts) {
  // rule 1
  if (!opts.noBodyLimit && bytes.length > BODY_LIMIT) {
    return ['refuse', `413 body-too-large: ${bytes.length} bytes > ${BODY_LIMIT}`];
  }
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // iconv-lite
  const raw = text;

  let step = 'yaml';
  try {
    // rule 2
    const job = yaml.safeLoad(text);
    // rule 3
    step = 'schema';
    if (!validateJob(job)) throw new Refusal('schema', ajvFirst(validateJob.errors));
    // rule 4
    step = 'protocol';
    checkReferences(job);
    // rule 5
    step = 'render';
    render(job);
    // rule 6
    if (opts.hived) {
      step = 'hived';
      hived(job, opts.user);
    }
    // rule 7
    step = 'job-model';
    const description = jobModel(job, raw, opts.user, opts.hived);
    // rule 8
    step = 'write-merger';
    mergerYaml.safeLoad(description.config);
    return ['accept', 'ok'];
  } catch (e) {
    if (e instanceof Refusal) return ['refuse', `${e.step}: ${e.message}`];
    if (step === 'yaml' && e instanceof yaml.YAMLException) return ['refuse', `yaml: ${e.message}`];
    if (step === 'render' && e && e.constructor === Error) return ['refuse', `render: ${e.message}`];
    const what = e && e.name ? `${e.name}: ${e.message}` : String(e);
    return ['refuse', `crash: ${step}: ${what}`];
  }
}

function oneLine(s) {
  return String(s).replace(/\s+/g, ' ').trim().slice(0, 300);
}

function main(argv) {
  const opts = { hived: true, noBodyLimit: false, basename: false, user: 'alice' };
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--scheduler') {
      const s = argv[++i];
      if (s !== 'hived' && s !== 'default') return usage();
      opts.hived = s === 'hived';
    } else if (a.startsWith('--scheduler=')) {
      const s = a.slice(12);
      if (s !== 'hived' && s !== 'default') return usage();
      opts.hived = s === 'hived';
    } else if (a === '--no-body-limit') {
      opts.noBodyLimit = true;
    } else if (a === '--basename') {
      opts.basename = true;
    } else if (a === '--') {
      files.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('--')) {
      return usage();
    } else {
      files.push(a);
    }
  }
  if (!files.length) return usage();
  const out = [];
  for (const f of files) {
    let verdict;
    try {
      verdict = judge(fs.readFileSync(f), opts);
    } catch (e) {
      verdict = ['refuse', `unreadable: ${e.message}`];
    }
    out.push(`${opts.basename ? path.basename(f) : f}\t${verdict[0]}\t${oneLine(verdict[1])}\n`);
  }
  process.stdout.write(out.join(''));
  return 0;
}

function usage() {
  process.stderr.write('usage: node check.js [--scheduler hived|default] [--no-body-limit] [--basename] FILE...\n');
  return 2;
}

process.exitCode = main(process.argv.slice(2));
