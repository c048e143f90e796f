# Runs a command the way Gradescope runs run_autograder: as root, in a container with Docker's default settings,
# as far as they matter to the sandbox's barriers. Docker's default seccomp profile refuses unshare, setns, mount,
# umount2 and pivot_root to a root without CAP_SYS_ADMIN (so no namespace of any kind), and its capabilities are
# these 14 alone (no CAP_SYS_ADMIN, no CAP_NET_ADMIN: no firewall rule either). Docker before version 23 also
# refused the Landlock system calls; this refuses them too, the weaker of the two. For OsIntegrityTest.
#   python3 container_like.py COMMAND...
import ctypes
import errno
import os
import struct
import sys

DOCKER_CAPS = {"chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid", "setfcap",
               "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write"}
ALL_CAPS = ["chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap",
            "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
            "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
            "sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write", "audit_control", "setfcap",
            "mac_override", "mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf",
            "checkpoint_restore"]
REFUSED = {"x86_64": (0xC000003E, [272, 308, 165, 166, 155]), "aarch64": (0xC00000B7, [97, 268, 40, 39, 41])}
LANDLOCK = [444, 445, 446]

audit, nrs = REFUSED[os.uname().machine]
prog = [(0x20, 0, 0, 4), (0x15, 1, 0, audit), (0x06, 0, 0, 0x7FFF0000), (0x20, 0, 0, 0)]
for nr, e in [(n, errno.EPERM) for n in nrs] + [(n, errno.ENOSYS) for n in LANDLOCK]:
    prog += [(0x15, 0, 1, nr), (0x06, 0, 0, 0x00050000 | e)]
prog.append((0x06, 0, 0, 0x7FFF0000))
raw = b"".join(struct.pack("=HBBI", *i) for i in prog)
buf = ctypes.create_string_buffer(raw, len(raw))


class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(22, 2, ctypes.byref(Fprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))), 0, 0) != 0:
    sys.exit("container_like.py: seccomp: " + os.strerror(ctypes.get_errno()))
drop = ",".join("cap_" + c for c in ALL_CAPS if c not in DOCKER_CAPS)
os.execvp("capsh", ["capsh", "--drop=" + drop, "--", "-c", 'exec "$0" "$@"'] + sys.argv[1:])
