# The sandbox's OS-level barriers, put up between the judge and the sandbox JVM (docs/grading-integrity.md,
# "OS-level barriers"). The judge runs this with `python3 -I -S -c <this text> ARGS -- COMMAND...`: it is passed as
# an argument, never as a file, so nothing a sandbox wrote can change the next sandbox's barriers. Each barrier is
# put up where this machine allows it and skipped where it does not; one line on standard error says which held,
# and the judge writes that into results.json's extra_data.barriers. Then the process becomes COMMAND (execv: the
# same pid, so the judge's handle and session are the sandbox JVM's).
#
# In order (each step needs the ones before it):
#   1. namespaces: a network namespace (no interface but a loopback that is down: no TCP, UDP or DNS to anywhere),
#      an IPC namespace (no System V shared memory, queue or semaphore outlives the sandbox or reaches another) and a
#      mount namespace, whose mounts are made private before any is made (on a host where / is shared, systemd's
#      default, they would otherwise appear in the judge's namespace). As root, unshare(2) directly; otherwise in a
#      user namespace that maps the user to itself, where the kernel allows one (tried in a child first, so a
#      half-made namespace never happens here).
#   2. in the mount namespace: a private /tmp, /var/tmp and /dev/shm (the judge's folders, emptied after every part;
#      nosuid, nodev, noexec) when Landlock cannot refuse writes there; as root, a /proc of its own with
#      hidepid=invisible (other users' processes, the judge's command line among them, are not listed).
#   3. the unprivileged sandbox user (as root, with --user): no groups, real = effective = saved ids.
#   4. no_new_privs: no setuid program gives anything back.
#   5. Landlock: writes only beneath the --write folders (and to /dev/null): not to /tmp, the course, the results,
#      /proc/self/mem; from ABI 4 no TCP connect or bind; from ABI 6 no signal to a process outside the sandbox.
#   6. a seccomp filter: socket(2) fails with EACCES (no TCP, UDP, DNS, netlink or Unix socket for the JVM or any
#      process it starts), and so does socketpair(2) of any type but a stream (an unbound Unix datagram socket from
#      socketpair can send to any socket path on the machine; a stream pair is connected to itself only, and the
#      JDK's file channels need one); io_uring (which can open sockets past socket(2)), ptrace, process_vm_readv/writev and
#      pidfd_getfd (another process's descriptors), System V IPC and the kernel's keyrings (state that outlives the
#      sandbox), unshare, setns and clone with a namespace flag fail with EPERM; clone3, whose flags a filter cannot
#      read, fails with ENOSYS, so the C library falls back to clone (as under Docker's profile).
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
CLONE_NEWIPC = 0x08000000
# Every namespace flag of clone(2) and unshare(2): NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NAMESPACES = 0x7E020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 32, 4096, 16384, 1 << 18
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
    """Step 1: 'root' or 'user' (which way the namespaces were made), 'root-shared' (made, but / could not be made
    private, so nothing is mounted in them), or '' (none)."""
    if "namespaces" in without:
        return ""
    if root:
        try:
            unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS)
        except OSError:
            return ""  # no CAP_SYS_ADMIN (a container), or the container's seccomp profile refuses unshare
        try:
            mount(None, "/", None, MS_REC | MS_PRIVATE)
        except OSError:
            return "root-shared"  # the namespaces hold; nothing may be mounted, or it would show in the judge's
        return "root"
    uid, gid = os.getuid(), os.getgid()

    def enter():
        unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS)
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
        try:
            mount(None, target, None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            pass  # hardening only: a user namespace may not change flags its parent locked
        os.close(source)
    if keep_fd is not None and where.startswith("/tmp/"):
        # The sandbox's class path lives under /tmp: mount it again where its paths say it is. The private /tmp is
        # the sandbox's own and may hold what an earlier start of it planted, so the way there is made one folder
        # at a time, each opened without following a link (a link there makes the start fail, never a folder or a
        # mount elsewhere); the judge spares these folders when it empties the private /tmp.
        at = os.open("/tmp", os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        for part in where[len("/tmp/"):].split("/"):
            try:
                os.mkdir(part, 0o755, dir_fd=at)
            except FileExistsError:
                pass
            nxt = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=at)
            os.close(at)
            at = nxt
        mount("/proc/self/fd/%d" % keep_fd, "/proc/self/fd/%d" % at, None, MS_BIND)
        os.close(at)
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
LL_REFER, LL_TRUNCATE, LL_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
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
    if abi >= 5:
        fs |= LL_IOCTL_DEV  # no ioctl on a device file (a terminal's, say) outside the rules
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = check(libc.syscall(LL_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)))
    file_rights = LL_WRITE_FILE | (LL_TRUNCATE if abi >= 3 else 0) | (LL_IOCTL_DEV if abi >= 5 else 0)
    for path, rights in [(p, fs) for p in writable] + [("/dev/null", file_rights)]:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        check(libc.syscall(LL_ADD_RULE, ruleset, ctypes.c_int(1), rule, ctypes.c_uint32(0)))
        os.close(fd)
    check(libc.syscall(LL_RESTRICT, ruleset, ctypes.c_uint32(0)))
    os.close(ruleset)


# seccomp, by machine: the audit architecture, the x32 bit to refuse (None where there is none), and the numbers of
# the system calls the filter names.
ARCHES = {
    "x86_64": (0xC000003E, 0x40000000, dict(
        socket=41, socketpair=53, ptrace=101, process_vm_readv=310, process_vm_writev=311, pidfd_getfd=438,
        io_uring_setup=425, io_uring_enter=426, io_uring_register=427, shmget=29, semget=64, msgget=68,
        add_key=248, request_key=249, keyctl=250, unshare=272, setns=308, clone=56, clone3=435)),
    "aarch64": (0xC00000B7, None, dict(
        socket=198, socketpair=199, ptrace=117, process_vm_readv=270, process_vm_writev=271, pidfd_getfd=438,
        io_uring_setup=425, io_uring_enter=426, io_uring_register=427, shmget=194, semget=190, msgget=186,
        add_key=217, request_key=218, keyctl=219, unshare=97, setns=268, clone=220, clone3=435)),
}
REFUSED = [("socket", errno.EACCES)] + [(n, errno.EPERM) for n in (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "shmget", "semget", "msgget", "add_key", "request_key", "keyctl", "unshare", "setns")] + [
    ("clone3", errno.ENOSYS)]


def seccomp():
    """Step 6: the filter, on the machines whose syscall numbers are known here; False elsewhere."""
    arch = ARCHES.get(os.uname().machine)
    if arch is None:
        return False
    audit, x32, nr = arch
    ld_abs, jeq, jge, jset, alu_and, ret = 0x20, 0x15, 0x35, 0x45, 0x54, 0x06
    allow = 0x7FFF0000
    deny = lambda e: 0x00050000 | e
    # A = arch; another architecture's calls (i386's int 0x80 on x86-64) are all refused. Then A = the call's number.
    prog = [(ld_abs, 0, 0, 4), (jeq, 1, 0, audit), (ret, 0, 0, deny(errno.EPERM)), (ld_abs, 0, 0, 0)]
    if x32 is not None:
        prog += [(jge, 0, 1, x32), (ret, 0, 0, deny(errno.EPERM))]
    for name, e in REFUSED:
        prog += [(jeq, 0, 1, nr[name]), (ret, 0, 0, deny(e))]
    # socketpair of any type but SOCK_STREAM (the second argument, low 32 bits at offset 24, less its SOCK_NONBLOCK
    # and SOCK_CLOEXEC flags): refused; a stream pair (the JDK makes one for its file channels): on, with A the
    # call's number again.
    prog += [(jeq, 0, 5, nr["socketpair"]), (ld_abs, 0, 0, 24), (alu_and, 0, 0, 0xF), (jeq, 1, 0, 1),
             (ret, 0, 0, deny(errno.EACCES)), (ld_abs, 0, 0, 0)]
    # clone with a namespace flag (its flags are the first argument, low 32 bits at offset 16): refused; without
    # one (every thread and process the JVM makes): on, with A the call's number again.
    prog += [(jeq, 0, 4, nr["clone"]), (ld_abs, 0, 0, 16), (jset, 0, 1, CLONE_NAMESPACES),
             (ret, 0, 0, deny(errno.EPERM)), (ld_abs, 0, 0, 0)]
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
    mounts = ns in ("root", "user")  # a mount namespace whose mounts are private
    abi = landlock_abi() if "landlock" not in without else -1
    abi = max(abi, 0)
    report["private_tmp_mount"] = False
    if mounts and opts["private_tmp"] and abi == 0:
        try:
            private_tmp(opts["private_tmp"], opts["keep"])
            report["private_tmp_mount"] = True
        except OSError as e:
            # Some folders may be mounted already: no JVM starts in a half-made namespace. (The judge's probe takes
            # the same path, so on a machine where this always fails the launcher is not used at all.)
            raise SystemExit(PREFIX + " error: the private /tmp could not be made: %s" % e)
    report["processes_hidden"] = False
    if ns == "root" and mounts and "hidepid" not in without:
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
