# The sandbox's OS-level barriers, put up between the judge and the sandbox JVM (docs/grading-integrity.md,
# "OS-level barriers"). The judge runs this with `python3 -I -S -c <this text> ARGS -- COMMAND...`: it is passed as
# an argument, never as a file, so nothing a sandbox wrote can change the next sandbox's barriers. Each barrier is
# put up where this machine allows it and skipped where it does not; one line on standard error says which held,
# and the judge writes that into results.json's extra_data.barriers. Then the process becomes COMMAND (execv: the
# same pid, so the judge's handle and session are the sandbox JVM's).
#
# In order (each step needs the ones before it):
#   1. namespaces: a network namespace (no interface but a loopback that is down: no TCP, UDP or DNS to anywhere)
#      and a mount namespace. As root, unshare(2) directly; otherwise in a user namespace that maps the user to
#      itself, where the kernel allows one (tried in a child first, so a half-made namespace never happens here).
#   2. in the mount namespace: a private /tmp, /var/tmp and /dev/shm (the judge's folders, emptied after every part)
#      when Landlock cannot refuse writes there; as root, a /proc of its own with hidepid=invisible (other users'
#      processes, the judge's command line among them, are not listed).
#   3. the unprivileged sandbox user (as root, with --user): no groups, real = effective = saved ids.
#   4. no_new_privs: no setuid program gives anything back.
#   5. Landlock: writes only beneath the --write folders (and to /dev/null): not to /tmp, the course, the results,
#      /proc/self/mem; from ABI 4 no TCP connect or bind; from ABI 6 no signal to a process outside the sandbox.
#   6. a seccomp filter: socket(2) fails with EACCES (no TCP, UDP, DNS, netlink or Unix socket for the JVM or any
#      process it starts), and io_uring (which can open sockets past socket(2)), ptrace and process_vm_readv/writev
#      fail with EPERM.
#
# ARGS: --user NAME, --write DIR (repeatable), --private-tmp DIR (holding tmp/, var-tmp/, shm/), --keep DIR (a folder
# under /tmp whose paths must still resolve once /tmp is private: the sandbox's own), --without LAYER (namespaces,
# hidepid, landlock or seccomp: the judge's tests take one layer away to test the others alone).
# Everything is imported now: once the user is dropped, a Python whose library sits in root's home cannot import.
import ctypes
import errno
import os
import pwd
import socket
import struct
import sys

PREFIX = "shardlings-launcher:"

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def check(result):
    if result < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return result


CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def unshare(flags):
    check(libc.unshare(flags))


def mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()
    check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)))


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


def parse(argv):
    opts = {"user": None, "write": [], "private_tmp": None, "keep": None, "without": set()}
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if i + 1 >= len(argv):
            raise SystemExit(PREFIX + " error: " + a + " needs a value")
        v = argv[i + 1]
        if a == "--user":
            opts["user"] = v
        elif a == "--write":
            opts["write"].append(v)
        elif a == "--private-tmp":
            opts["private_tmp"] = v
        elif a == "--keep":
            opts["keep"] = v
        elif a == "--without":
            opts["without"].add(v)
        else:
            raise SystemExit(PREFIX + " error: unknown option " + a)
        i += 2
    return opts, argv[i + 1:]


def namespaces(root, without):
    """Step 1: 'root' or 'user' (which way the namespaces were made) or '' (none)."""
    if "namespaces" in without:
        return ""
    if root:
        try:
            unshare(CLONE_NEWNET | CLONE_NEWNS)
            return "root"
        except OSError:
            return ""  # no CAP_SYS_ADMIN (a container), or the container's seccomp profile refuses unshare
    uid, gid = os.getuid(), os.getgid()

    def enter():
        unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS)
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", "%d %d 1" % (uid, uid))
        write_file("/proc/self/gid_map", "%d %d 1" % (gid, gid))
        mount(None, "/", None, MS_REC | MS_PRIVATE)

    pid = os.fork()
    if pid == 0:  # a trial in a child: user namespaces can be allowed, refused, or allowed without capabilities
        try:
            enter()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return ""
    enter()
    return "user"


def private_tmp(private, keep):
    """Step 2a: the judge's folders mounted on /tmp, /var/tmp and /dev/shm; the sandbox's own folder kept."""
    # Every folder is opened before the first mount: the judge's folders are themselves under /tmp, which the first
    # mount hides.
    fd = lambda p: os.open(p, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    keep_fd = fd(keep) if keep else None
    where = os.path.realpath(keep) if keep else None
    sources = [(fd(os.path.join(private, name)), target)
               for name, target in (("tmp", "/tmp"), ("var-tmp", "/var/tmp"), ("shm", "/dev/shm"))
               if os.path.isdir(target)]
    for source, target in sources:
        mount("/proc/self/fd/%d" % source, target, None, MS_BIND)
        os.close(source)
    if keep_fd is not None and where.startswith("/tmp/"):
        # The sandbox's class path lives under /tmp: mount it again where its paths say it is (the folder made for it
        # in the private /tmp is the judge's to spare when it empties that folder).
        os.makedirs(where, exist_ok=True)
        mount("/proc/self/fd/%d" % keep_fd, where, None, MS_BIND)
    if keep_fd is not None:
        os.close(keep_fd)


def hide_processes():
    """Step 2b (root only): a /proc of this mount namespace that lists only the sandbox user's own processes."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible")


def become(user):
    """Step 3: the sandbox user, with no supplementary groups."""
    pw = pwd.getpwnam(user)
    os.setgroups([])
    os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
    os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)


# Landlock (include/uapi/linux/landlock.h). The syscall numbers are the same on every architecture.
LL_CREATE, LL_ADD_RULE, LL_RESTRICT = 444, 445, 446
LL_WRITE_FILE, LL_REMOVE_DIR, LL_REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
LL_MAKE = sum(1 << b for b in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
LL_REFER, LL_TRUNCATE = 1 << 13, 1 << 14
LL_NET_BIND_TCP, LL_NET_CONNECT_TCP = 1 << 0, 1 << 1
LL_SCOPE_ABSTRACT_UNIX, LL_SCOPE_SIGNAL = 1 << 0, 1 << 1


def landlock_abi():
    return libc.syscall(LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))


def landlock(abi, writable):
    """Step 5: writes only beneath `writable`; no TCP and no signals out where the ABI has them. The ABI's level."""
    fs = LL_WRITE_FILE | LL_REMOVE_DIR | LL_REMOVE_FILE | LL_MAKE
    if abi >= 2:
        fs |= LL_REFER
    if abi >= 3:
        fs |= LL_TRUNCATE
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = check(libc.syscall(LL_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)))
    file_rights = LL_WRITE_FILE | (LL_TRUNCATE if abi >= 3 else 0)
    for path, rights in [(p, fs) for p in writable] + [("/dev/null", file_rights)]:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        check(libc.syscall(LL_ADD_RULE, ruleset, ctypes.c_int(1), rule, ctypes.c_uint32(0)))
        os.close(fd)
    check(libc.syscall(LL_RESTRICT, ruleset, ctypes.c_uint32(0)))
    os.close(ruleset)


# seccomp: (audit arch, syscalls refused with EACCES, syscalls refused with EPERM, x32 bit to refuse) by machine.
ARCHES = {
    "x86_64": (0xC000003E, [41], [101, 310, 311, 425, 426, 427], 0x40000000),   # socket; ptrace, process_vm_*, io_uring_*
    "aarch64": (0xC00000B7, [198], [117, 270, 271, 425, 426, 427], None),
}


def seccomp():
    """Step 6: the filter, on the machines whose syscall numbers are known here; False elsewhere."""
    arch = ARCHES.get(os.uname().machine)
    if arch is None:
        return False
    audit, eacces, eperm, x32 = arch
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow = 0x7FFF0000
    deny = lambda e: 0x00050000 | e
    prog = [(ld_abs, 0, 0, 4), (jeq, 1, 0, audit), (ret, 0, 0, deny(errno.EPERM)), (ld_abs, 0, 0, 0)]
    if x32 is not None:
        prog += [(jge, 0, 1, x32), (ret, 0, 0, deny(errno.EPERM))]
    for nr, e in [(n, errno.EACCES) for n in eacces] + [(n, errno.EPERM) for n in eperm]:
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, deny(e))]
    prog.append((ret, 0, 0, allow))
    raw = b"".join(struct.pack("=HBBI", *ins) for ins in prog)
    filt = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(prog), ctypes.cast(filt, ctypes.c_void_p))
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0))
    return True


def main():
    opts, command = parse(sys.argv[1:])
    without = opts["without"]
    root = os.geteuid() == 0
    report = {}
    ns = namespaces(root, without)
    report["network_namespace"] = bool(ns)
    abi = landlock_abi() if "landlock" not in without else -1
    abi = max(abi, 0)
    report["private_tmp_mount"] = False
    if ns and opts["private_tmp"] and abi == 0:
        try:
            private_tmp(opts["private_tmp"], opts["keep"])
            report["private_tmp_mount"] = True
        except OSError as e:
            sys.stderr.write(PREFIX + " note: no private /tmp: %s\n" % e)
    report["processes_hidden"] = False
    if ns == "root" and "hidepid" not in without:
        try:
            hide_processes()
            report["processes_hidden"] = True
        except OSError:
            pass  # a kernel before 5.8 has no per-mount hidepid: the machine's /proc is left as it is
    if opts["user"]:
        become(opts["user"])
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    report["landlock_abi"] = 0
    if abi > 0:
        try:
            landlock(abi, opts["write"])
            report["landlock_abi"] = abi
        except OSError as e:
            sys.stderr.write(PREFIX + " note: Landlock not applied: %s\n" % e)
    report["seccomp"] = False
    if "seccomp" not in without:
        try:
            report["seccomp"] = seccomp()
        except OSError as e:
            sys.stderr.write(PREFIX + " note: seccomp not applied: %s\n" % e)
    line = " ".join("%s=%s" % (k, str(v).lower()) for k, v in report.items())
    sys.stderr.write(PREFIX + " " + line + "\n")
    sys.stderr.flush()
    if not command:
        raise SystemExit(PREFIX + " error: no command after --")
    os.execv(command[0], command)


main()
