package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ResourceManager's own log says about containers. A failed attempt keeps only the
 * containers the RM knows to run: one whose start its NodeManager has not reported yet (at its next
 * heartbeat) is killed with the attempt (CapacityScheduler.doneApplicationAttempt), while the RM's
 * client API already reports it RUNNING. Only the log tells the two apart. Read on from where the
 * last call stopped, since the log grows for the cluster's whole life.
 */
final class ResourceManagerLog {
    private static final Pattern RUNNING =
            Pattern.compile("(container_\\S+) Container Transitioned from ACQUIRED to RUNNING");
    private final Path file;
    private final Set<String> running = new HashSet<>();
    private long read;

    ResourceManagerLog(Path file) {
        this.file = file;
    }

    synchronized boolean sawRunning(String containerId) throws IOException {
        try (FileChannel log = FileChannel.open(file)) {
            if (log.size() < read) {
                read = 0; // Not the log read before: read it from the start.
            }
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE, log.size() - read));
            log.read(buf, read);
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
            String complete = text.substring(0, text.lastIndexOf('\n') + 1); // A line being written waits.
            Matcher m = RUNNING.matcher(complete);
            while (m.find()) {
                running.add(m.group(1));
            }
            read += complete.getBytes(StandardCharsets.UTF_8).length;
        }
        return running.contains(containerId);
    }
}
