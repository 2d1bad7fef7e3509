# '-' reads standard input as it is, also a socket (as from a service
# or `ssh host paictl validate - <job.json` through some launchers),
# which /dev/stdin cannot reopen (ENXIO)
run: python3 sock.py
=== file sock.py
import socket, subprocess, sys
a, b = socket.socketpair()
a.sendall(open("job.json", "rb").read())
a.shutdown(socket.SHUT_WR)
sys.exit(subprocess.run(["paictl", "validate", "-"], stdin=b).returncode)
=== file job.json
{"jobName": "hello", "image": "ubuntu:18.04", "taskRoles": [{"name": "main",
 "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0,
 "command": "echo hello"}]}
=== stdout
<stdin>: ok
