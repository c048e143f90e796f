# What course code would meet, tried once per judge (OsBarriers.probe): run as the command of sandbox_launcher.py, so
# after its execv, with exactly the barriers the sandbox JVM gets. It tries TCP to each HOST:PORT given (the judge's
# own listeners, on loopback and on the machine's addresses), a UDP socket, a Unix socket, a socketpair, System V
# shared memory and the user's keyring, opening /proc/self/mem for writing and writing a file in /tmp, and prints one
# line: what each attempt got. The judge decides from it and from what its listeners saw; nothing here decides.
#   ARGS: TMPNAME HOST:PORT...
import ctypes
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
    # An unbound Unix datagram socket, made without socket(2), can still send to any socket path on the machine (a
    # stream pair, which the JDK needs, is connected to itself only).
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.close()
    b.close()
    parts.append("socketpair=opened")
except OSError as e:
    parts.append("socketpair=" + outcome(e))
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# System V shared memory (IPC_PRIVATE, 4 KB, IPC_CREAT | 0600) and a key in the user's keyring outlive a process.
shm = libc.shmget(0, 4096, 0o1000 | 0o600)
if shm >= 0:
    libc.shmctl(shm, 0, None)  # IPC_RMID
parts.append("sysv_shm=" + ("made" if shm >= 0 else "refused-" + errno.errorcode.get(ctypes.get_errno(), "?")))
key = libc.syscall({"x86_64": 248, "aarch64": 217}.get(os.uname().machine, -1), b"user", b"shardlings-probe",
                   b"x", ctypes.c_size_t(1), ctypes.c_int(-4))  # add_key(..., KEY_SPEC_USER_KEYRING)
if key >= 0:
    libc.syscall({"x86_64": 250, "aarch64": 219}[os.uname().machine], 21, ctypes.c_long(key))  # KEYCTL_INVALIDATE
parts.append("keyring=" + ("made" if key >= 0 else "refused-" + errno.errorcode.get(ctypes.get_errno(), "?")))
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
