package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The jars the daemons and containers run on, copied to a world-readable directory: each node's
 * user must read them, and Maven's repository under {@code /root} is not readable by other users.
 * A set of jars is copied once and reused, keyed by names and sizes.
 */
final class HadoopLib {
    private static final Path CACHE = Path.of("/var/tmp/amlease-field-lib");

    private HadoopLib() {}

    static Path of(List<Path> jars) throws IOException {
        Path dir = CACHE.resolve(key(jars));
        if (Files.isRegularFile(dir.resolve(".complete"))) {
            return dir;
        }
        Path tmp = Files.createDirectories(CACHE).resolve(dir.getFileName() + ".tmp" + ProcessHandle.current().pid());
        Files.createDirectories(tmp);
        for (Path jar : jars) {
            Path to = tmp.resolve(jar.getFileName());
            Files.copy(jar, to, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rw-r--r--"));
        }
        Files.createFile(tmp.resolve(".complete"));
        for (Path p : List.of(CACHE, tmp)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        try {
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
            if (!Files.isRegularFile(dir.resolve(".complete"))) {
                throw raced;
            }
            Commands.run(List.of("rm", "-rf", tmp.toString())); // Another run copied the same set.
        }
        return dir;
    }

    private static String key(List<Path> jars) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (Path jar : jars) {
                d.update((jar.getFileName() + ":" + Files.size(jar) + "\n").getBytes());
            }
            return HexFormat.of().formatHex(d.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
