package dev.shardlings.grader.host;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** What the sandbox asks of the machine it runs on: root or not, which users exist, which tools are on the path. */
final class OsProbes {

    private OsProbes() {
    }

    static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static boolean userExists(String name) {
        return uidOf(name).isPresent();
    }

    static Optional<Integer> uidOf(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
                String[] f = line.split(":");
                if (f.length > 2 && f[0].equals(name)) {
                    return Optional.of(Integer.parseInt(f[2]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no passwd file: no such user
        }
        return Optional.empty();
    }

    static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    /** The resident memory of a process in bytes (VmRSS in /proc/PID/status), or -1 where it cannot be read. */
    static long residentBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    long kb = Long.parseLong(f[0]);
                    return f.length > 1 && f[1].equalsIgnoreCase("kB") ? kb << 10 : -1;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone
        }
        return -1;
    }
}
