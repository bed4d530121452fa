package io.amlease.testkit.field;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Real network faults in the field cluster's own namespace: nftables rules in an output chain that
 * drop what one user's processes send, to everyone or to some ports only. Dropping (not rejecting)
 * is what a cut cable looks like: connections hang until their own timeouts. {@link #heal()}
 * removes every cut.
 *
 * <p>{@code meta skuid} alone leaks: once a process closes a socket, the kernel still sends what
 * the socket had queued (and its FIN) from an orphaned socket that has no owner to match, so a
 * partitioned ZooKeeper client that gives up on its connection delivers its last pings after all,
 * and the server keeps its session alive for another timeout. So every connection a tracked user
 * opens is marked with that user in conntrack when it starts, and a cut drops by that mark too.
 */
final class Netfilter {
    private static final String TABLE = "amlease_field";

    Netfilter() throws IOException {
        NetNamespace.requirePrivate();
        Commands.run(List.of("nft", "add", "table", "inet", TABLE));
        // Marking first (priority -1), and never flushed: a connection keeps the mark it started with.
        Commands.run(List.of("nft", "add", "chain", "inet", TABLE, "track",
                "{ type filter hook output priority -1; policy accept; }"));
        Commands.run(List.of("nft", "add", "chain", "inet", TABLE, "out",
                "{ type filter hook output priority 0; policy accept; }"));
    }

    /** Marks every connection {@code uid}'s processes open from now on, so a cut of it can follow them. */
    void track(int uid) throws IOException {
        Commands.run(List.of("nft", "add", "rule", "inet", TABLE, "track", "ct", "state", "new",
                "meta", "skuid", Integer.toString(uid), "ct", "mark", "set", mark(uid)));
    }

    /** Drops everything {@code user} sends, and both ways on the connections it opened. */
    void cut(NodeUser user) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(user.uid()), "drop"));
        rule(List.of("ct", "mark", mark(user.uid()), "drop"));
    }

    /** Drops what {@code user} sends to these ports (and so every connection to them). */
    void cut(NodeUser user, List<Integer> ports) throws IOException {
        cut(user.uid(), ports);
    }

    /** Drops what the processes of {@code uid} send to these ports. */
    void cut(int uid, List<Integer> ports) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(uid), "tcp", "dport", set(ports), "drop"));
        rule(List.of("ct", "mark", mark(uid), "tcp", "dport", set(ports), "drop"));
    }

    /** Drops what this machine sends to these ports from any user (a server cut off from peers). */
    void cutPorts(List<Integer> ports) throws IOException {
        rule(List.of("tcp", "dport", set(ports), "drop"));
    }

    void heal() throws IOException {
        Commands.run(List.of("nft", "flush", "chain", "inet", TABLE, "out"));
    }

    String rules() throws IOException {
        return Commands.run(List.of("nft", "list", "table", "inet", TABLE));
    }

    /** A user's connection mark: its uid + 1, since 0 is conntrack's "unmarked" and root is tracked too. */
    private static String mark(int uid) {
        return Integer.toString(uid + 1);
    }

    private static String set(List<Integer> ports) {
        return "{ " + String.join(", ", ports.stream().map(String::valueOf).toList()) + " }";
    }

    private void rule(List<String> rule) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("nft", "add", "rule", "inet", TABLE, "out"));
        cmd.addAll(rule);
        Commands.run(cmd);
    }
}
