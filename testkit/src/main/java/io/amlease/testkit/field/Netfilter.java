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
 * and the server keeps its session alive for another timeout. And it cuts one way only: what others
 * send to a cut user's servers still arrives. So every connection of a tracked user is marked in
 * conntrack: with the user that opened it (low 16 bits, on its first packet) and with the user that
 * accepted it (high 16 bits, on its first answer), and a cut drops by those marks too, both ways.
 */
final class Netfilter {
    private static final String TABLE = "amlease_field";

    Netfilter() throws IOException {
        NetNamespace.requirePrivate();
        Commands.run(List.of("nft", "add", "table", "inet", TABLE));
        // Marking first (priority -1), and never flushed: a connection keeps the marks it started with.
        Commands.run(List.of("nft", "add", "chain", "inet", TABLE, "track",
                "{ type filter hook output priority -1; policy accept; }"));
        Commands.run(List.of("nft", "add", "chain", "inet", TABLE, "out",
                "{ type filter hook output priority 0; policy accept; }"));
    }

    /** Marks every connection {@code uid}'s processes open or accept from now on, so a cut can follow them. */
    void track(int uid) throws IOException {
        Commands.run(List.of("nft", "add", "rule", "inet", TABLE, "track", "ct", "state", "new",
                "meta", "skuid", Integer.toString(uid), "ct", "mark", "set", opened(uid)));
        Commands.run(List.of("nft", "add", "rule", "inet", TABLE, "track", "ct", "direction", "reply",
                "meta", "skuid", Integer.toString(uid), "ct", "mark", "and", "0xffff0000", "==", "0",
                "ct", "mark", "set", "ct", "mark", "or", accepted(uid)));
    }

    /** Drops everything {@code user} sends, and both ways on every connection it opened or accepted. */
    void cut(NodeUser user) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(user.uid()), "drop"));
        rule(List.of("ct", "mark", "and", "0xffff", "==", opened(user.uid()), "drop"));
        rule(List.of("ct", "mark", "and", "0xffff0000", "==", accepted(user.uid()), "drop"));
    }

    /** Drops what {@code user} sends to these ports, and both ways on the connections it opened to them. */
    void cut(NodeUser user, List<Integer> ports) throws IOException {
        cut(user.uid(), ports);
    }

    /** Drops what the processes of {@code uid} send to these ports, and the answers on those connections. */
    void cut(int uid, List<Integer> ports) throws IOException {
        rule(List.of("meta", "skuid", Integer.toString(uid), "tcp", "dport", set(ports), "drop"));
        rule(List.of("ct", "mark", "and", "0xffff", "==", opened(uid), "tcp", "dport", set(ports), "drop"));
        rule(List.of("ct", "mark", "and", "0xffff", "==", opened(uid), "tcp", "sport", set(ports), "drop"));
    }

    /** Drops what anyone sends to these ports and what is sent from them (a server cut off from peers). */
    void cutPorts(List<Integer> ports) throws IOException {
        rule(List.of("tcp", "dport", set(ports), "drop"));
        rule(List.of("tcp", "sport", set(ports), "drop"));
    }

    void heal() throws IOException {
        Commands.run(List.of("nft", "flush", "chain", "inet", TABLE, "out"));
    }

    String rules() throws IOException {
        return Commands.run(List.of("nft", "list", "table", "inet", TABLE));
    }

    /** The mark of a connection a user opened: its uid + 1, since 0 is "unmarked" and root is tracked too. */
    private static String opened(int uid) {
        if (uid + 1 > 0xffff) {
            throw new IllegalArgumentException("a tracked uid must be below 65535 to fit its mark: " + uid);
        }
        return Integer.toString(uid + 1);
    }

    /** The mark of a connection a user accepted, in the high 16 bits. */
    private static String accepted(int uid) {
        return "0x" + Integer.toHexString(Integer.parseInt(opened(uid)) << 16);
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
