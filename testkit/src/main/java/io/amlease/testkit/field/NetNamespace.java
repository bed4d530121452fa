package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Guards every network change the field cluster makes: it runs only in a network namespace of its
 * own ({@code unshare -n}, which the field tests' JVM is started under), never in the machine's.
 */
final class NetNamespace {
    private NetNamespace() {}

    /**
     * Whether this process's network namespace has loopback only, as one made by {@code unshare -n}
     * has; the machine's own has its real interfaces. ({@code /proc/1/ns/net} cannot be compared
     * with: in a sandbox it is not readable.)
     */
    static boolean isPrivate() {
        try {
            List<String> interfaces = Files.readAllLines(Path.of("/proc/self/net/dev")).stream()
                    .skip(2).map(l -> l.substring(0, l.indexOf(':')).strip()).toList();
            return interfaces.equals(List.of("lo"));
        } catch (IOException | RuntimeException e) {
            return false; // Cannot tell: treat as the machine's own.
        }
    }

    static void requirePrivate() {
        if (!isPrivate()) {
            throw new IllegalStateException("the field cluster changes network rules and runs only in a "
                    + "network namespace of its own, with loopback only (start the JVM under 'unshare -n'; see "
                    + "integration-tests/src/test/netns/bin/java); this is the machine's own");
        }
    }
}
