package io.amlease.it;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the field cluster's recording masters leave behind, read the same way by every field test:
 * each term's master writes {@code term-<epoch>} (its pid, its AM's pid, its user) once and a
 * millisecond stamp every 100 ms to {@code record-<epoch>}, on the one clock every node shares.
 */
final class FieldRecords {
    private FieldRecords() {}

    /** What a term's master wrote first: its pid, its AM's pid, and the user (so the node) it ran as. */
    record Term(long masterPid, long amPid, String user) {
        static Term read(Path file) throws Exception {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(file));
            String[] f = Files.readString(file).trim().split(" ");
            return new Term(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2]);
        }
    }

    /** The millisecond stamps a term's master recorded, in order. */
    static List<Long> stamps(Path record) throws Exception {
        if (!Files.exists(record)) {
            return List.of();
        }
        return Files.readAllLines(record).stream().filter(l -> l.matches("\\d+")).map(Long::parseLong).toList();
    }

    /**
     * The master's script: it records each start (a file {@code start-<epoch>-<pid>}: the
     * masters run as their nodes' users, so none can append to a file another made), its
     * term (pids and user) in {@code term-<epoch>} and a millisecond stamp every 100 ms in
     * {@code record-<epoch>}.
     */
    static Path masterScript(Path dir) throws Exception {
        Path master = dir.resolve("master.sh");
        Files.writeString(master, "touch " + dir + "/start-$AMLEASE_EPOCH-$$\n"
                + "echo \"$$ $PPID $(id -un)\" > " + dir + "/tmp-$$\n"
                + "mv " + dir + "/tmp-$$ " + dir + "/term-$AMLEASE_EPOCH\n"
                + "while :; do date +%s%3N >> " + dir + "/record-$AMLEASE_EPOCH; sleep 0.1; done\n");
        return master;
    }

    /**
     * The worker every field application runs, under amlease's AM and {@link LatchAm} alike: it
     * records the node (user) it started on in {@code worker-<container>}, then waits.
     */
    static String workerCommand(Path dir) {
        return "id -un > " + dir + "/worker-$CONTAINER_ID; exec sleep 600";
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static long longestGap(List<Long> stamps) {
        long longest = 0;
        for (int i = 1; i < stamps.size(); i++) {
            longest = Math.max(longest, stamps.get(i) - stamps.get(i - 1));
        }
        return longest;
    }
}
