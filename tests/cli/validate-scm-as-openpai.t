# the SCM fork's export is invalid under the default openpai dialect
run: paictl validate scm-jupyter.json
exit: 3
=== file scm-jupyter.json
{
  "jobName": "jupyter_16be8b71",
  "image": "sitonholy/ai:16.04-9.0-3.5-pmt",
  "authFile": "",
  "dataDir": "",
  "outputDir": "",
  "codeDir": "",
  "retryCount": 0,
  "taskRoles": [
    {
      "name": "task_1",
      "taskNumber": 1,
      "cpuNumber": 1,
      "memoryMB": 8192,
      "shmMB": 64,
      "gpuNumber": 1,
      "storageGB": 5,
      "minFailedTaskCount": null,
      "minSucceededTaskCount": null,
      "command": "jupyter notebook --allow-root --no-browser --ip 0.0.0.0 --port=$PAI_CONTAINER_HOST_jupyter_PORT_LIST --NotebookApp.token=\\\"\\\" --NotebookApp.allow_origin=\\\"*\\\" --NotebookApp.base_url=\\\"/\\\"",
      "portList": [
        {
          "label": "jupyter",
          "beginAt": 0,
          "portNumber": 1
        }
      ]
    }
  ],
  "jobEnvs": {},
  "extras": {},
  "gpuType": "TITANX",
  "tmp": {
    "vgInfo": {
      "名称": "test",
      "正在跑工作数目": "1",
      "使用中內存/全部內存": "8192/100000",
      "使用中硬盘/全部硬盘": "5/100",
      "使用中中央处理器/全部中中央处理器": "1/32",
      "显示卡(使用中/全部)": {
        "TITANX": "1/2",
        "P100": "0/2"
      }
    }
  }
}
=== stdout
=== stderr
scm-jupyter.json:17:7: error: taskRoles[0].storageGB: unknown field "storageGB" in a task role: it belongs to the scm dialect (--dialect scm) [unknown-field]
    17 |       "storageGB": 5,
       |       ^
scm-jupyter.json:33:3: error: tmp: unknown field "tmp" in the job: it belongs to the scm dialect (--dialect scm) [unknown-field]
    33 |   "tmp": {
       |   ^
scm-jupyter.json: 2 errors, 0 warnings
