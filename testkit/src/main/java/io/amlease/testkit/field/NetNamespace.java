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

    /**
     * Keeps {@code ports} from being handed out as ephemeral ports in this namespace (the sysctl is
     * the namespace's own): the kit picks its servers' ports up front, and a ZooKeeper peer's or a
     * client's outgoing connection took a NameNode's port before it bound it.
     */
    static void reserveForServers(List<Integer> ports) throws IOException {
        requirePrivate();
        Files.writeString(Path.of("/proc/sys/net/ipv4/ip_local_reserved_ports"),
                String.join(",", ports.stream().map(String::valueOf).toList()));
    }

    static void requirePrivate() {
        if (!isPrivate()) {
            throw new IllegalStateException("the field cluster changes network rules and runs only in a "
                    + "network namespace of its own, with loopback only (start the JVM under 'unshare -n'; see "
                    + "integration-tests/src/test/netns/bin/java); this is the machine's own");
        }
    }
}
