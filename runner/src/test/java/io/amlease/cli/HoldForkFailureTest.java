package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * G4 when no process can be forked (issue 24 item 4): COMMAND has used up every task its cgroup
 * allows (a pids cgroup, as RLIMIT_NPROC would for a non-root user; root is exempt from that
 * limit), and then the term ends. hold must still stop COMMAND's group and exit 75, in bounded
 * time. Before the fix every signal forked /bin/kill, which failed, and hold waited forever.
 *
 * <p>Needs a writable cgroup v1 pids hierarchy (root on this machine kind); skipped elsewhere.
 */
class HoldForkFailureTest {
  private static final Path PIDS = Path.of("/sys/fs/cgroup/pids");
  private static final Duration EXIT = Duration.ofSeconds(20);

  @TempDir
  Path dir;

  @Test
  void aCommandThatUsedUpEveryTaskIsStillStoppedWhenTheTermEnds() throws Exception {
    Path cgroup = PIDS.resolve("amlease-test-" + UUID.randomUUID());
    try {
      Files.createDirectory(cgroup);
    } catch (IOException e) {
      Assumptions.abort("no writable pids cgroup here (" + e + ")");
    }
    String lease = "/fork-failure/lease";
    Path pid = dir.resolve("pid");
    Path go = dir.resolve("go");
    try (TestingServer server = ZkServers.standalone();
         Znodes zk = new Znodes(server.getConnectString());
         HoldProcess hold = HoldProcess.start(dir, "hold", "hold", "--zk",
             server.getConnectString(), "--lease", lease, "--session-timeout", "6s",
             "--stop-timeout", "1s", "--", "bash", "-c", "echo $$ > " + pid + "; while [ ! -e "
                 + go + " ]; do sleep 0.1; done; while :; do sleep 1000 & done")) {
      // In before it forks its reaper and COMMAND (the JVM takes a second to start).
      Files.writeString(cgroup.resolve("cgroup.procs"), Long.toString(hold.pid()));
      await().atMost(EXIT).failFast(() -> !hold.isAlive()).until(() -> Files.exists(pid)
          && !Files.readString(pid).isBlank());
      long command = Long.parseLong(Files.readString(pid).trim());
      hold.killOnClose(command);
      long used = Long.parseLong(Files.readString(cgroup.resolve("pids.current")).trim());
      Files.writeString(cgroup.resolve("pids.max"), Long.toString(used + 16));
      Files.writeString(go, "");
      await().atMost(Duration.ofSeconds(10)).until(() -> read(cgroup, "pids.current")
          >= read(cgroup, "pids.max"));

      // The term ends (an operator's write bumps the epoch): hold must stop COMMAND without a fork.
      zk.set(lease + "/epoch", "7");
      assertThat(hold.awaitExit(EXIT)).as(hold::describe).isEqualTo(ExitCodes.LEASE_LOST);
      assertThat(ProcessHandle.of(command).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      await().atMost(Duration.ofSeconds(10)).until(() -> procs(cgroup).isEmpty());
    } finally {
      for (long p : procs(cgroup)) {
        ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> procs(cgroup).isEmpty());
      Files.delete(cgroup);
    }
  }

  private static long read(Path cgroup, String file) throws IOException {
    String v = Files.readString(cgroup.resolve(file)).trim();
    return v.equals("max") ? Long.MAX_VALUE : Long.parseLong(v);
  }

  private static List<Long> procs(Path cgroup) throws IOException {
    return Files.readAllLines(cgroup.resolve("cgroup.procs"), StandardCharsets.US_ASCII).stream()
        .filter(l -> !l.isBlank()).map(Long::parseLong).toList();
  }
}
