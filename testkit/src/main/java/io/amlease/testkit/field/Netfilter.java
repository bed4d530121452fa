package io.amlease.testkit.field;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Real network faults in the field cluster's own namespace: nftables rules in an output chain that
 * drop what one node's user sends, to everyone or to some ports only. Dropping (not rejecting)
 * is what a cut cable looks like: connections hang until their own timeouts. {@link #heal()}
 * removes every rule.
 */
final class Netfilter {
    private static final String TABLE = "amlease_field";

    Netfilter() throws IOException {
        NetNamespace.requirePrivate();
        Commands.run(List.of("nft", "add", "table", "inet", TABLE));
        Commands.run(List.of("nft", "add", "chain", "inet", TABLE, "out",
                "{ type filter hook output priority 0; policy accept; }"));
    }

    /** Drops everything {@code user} sends. */
    void cut(NodeUser user) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(user.uid()), "drop"));
    }

    /** Drops what {@code user} sends to these ports (and so every connection to them). */
    void cut(NodeUser user, List<Integer> ports) throws IOException {
        cut(user.uid(), ports);
    }

    /** Drops what the processes of {@code uid} send to these ports. */
    void cut(int uid, List<Integer> ports) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(uid), "tcp", "dport", "{",
                String.join(", ", ports.stream().map(String::valueOf).toList()), "}", "drop"));
    }

    /** Drops what this machine sends to these ports from any user (a server cut off from peers). */
    void cutPorts(List<Integer> ports) throws IOException {
        rule(List.of("tcp", "dport", "{", String.join(", ", ports.stream().map(String::valueOf).toList()),
                "}", "drop"));
    }

    void heal() throws IOException {
        Commands.run(List.of("nft", "flush", "chain", "inet", TABLE, "out"));
    }

    String rules() throws IOException {
        return Commands.run(List.of("nft", "list", "table", "inet", TABLE));
    }

    private void rule(List<String> rule) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("nft", "add", "rule", "inet", TABLE, "out"));
        cmd.addAll(rule);
        Commands.run(cmd);
    }
}
