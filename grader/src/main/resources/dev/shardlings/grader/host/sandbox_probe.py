# What course code would meet, tried once per sandbox by the judge (SandboxLauncher.probe): run as the command of
# sandbox_launcher.py, so after its execv, with exactly the barriers the sandbox JVM gets. It tries each HOST:PORT
# given (the judge's own listeners, on loopback and on the machine's address), a name lookup, opening /proc/self/mem
# for writing and writing a file in /tmp, and prints one line: what each attempt got. The judge decides from it and
# from what its listeners saw; nothing here decides.
#   ARGS: TMPNAME HOST:PORT...
import errno
import os
import socket
import sys


def outcome(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    return "refused-" + errno.errorcode.get(e.errno, str(e.errno)) if getattr(e, "errno", None) else "failed"


parts = []
for target in sys.argv[2:]:
    host, _, port = target.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=2).close()
        parts.append("connect:%s=connected" % target)
    except OSError as e:
        parts.append("connect:%s=%s" % (target, outcome(e)))
# A real name lookup needs a socket: the resolver's UDP or TCP, or a Unix socket of the machine's DNS cache (nscd,
# systemd-resolved), which a network namespace does not cut off.
for name, family, kind in (("udp_socket", socket.AF_INET, socket.SOCK_DGRAM),
                           ("unix_socket", socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(family, kind).close()
        parts.append(name + "=opened")
    except OSError as e:
        parts.append(name + "=" + outcome(e))
try:
    os.close(os.open("/proc/self/mem", os.O_RDWR))
    parts.append("proc_self_mem=writable")
except OSError as e:
    parts.append("proc_self_mem=" + outcome(e))
try:
    path = os.path.join("/tmp", sys.argv[1])
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    parts.append("tmp_write=written")
except OSError as e:
    parts.append("tmp_write=" + outcome(e))
sys.stderr.write("shardlings-probe: " + " ".join(parts) + "\n")
