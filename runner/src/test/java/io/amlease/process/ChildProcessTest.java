package io.amlease.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChildProcess} with real processes: the child is its own process group and session, and
 * everything in that group is stopped with it. (That the group also dies with a SIGKILLed runner
 * needs a runner to kill: {@code HoldProcessTreeTest}.)
 */
class ChildProcessTest {
  private static final Duration SOON = Duration.ofSeconds(10);
  private static final Duration POLL = Duration.ofMillis(20);

  @TempDir Path dir;
  private final String marker = ProcessTable.marker();
  private ChildProcess child;

  @AfterEach
  void killLeftovers() {
    ProcessTable.sleeping(marker).forEach(ProcessHandle::destroyForcibly);
    if (child != null) {
      ProcessHandle.of(child.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void childLeadsItsOwnProcessGroupAndSessionAsSoonAsStartReturns() throws Exception {
    child = start("sleep " + marker);
    // Not awaited: a signal sent right after start() must already reach the whole group.
    assertThat(ProcessTable.pgid(child.pid())).hasValue(child.pid());
    assertThat(ProcessTable.sid(child.pid())).hasValue(child.pid());
    assertThat(child.terminate(SOON)).isEqualTo(128 + 15);
  }

  @Test
  void terminateStopsTheGrandchildToo() throws Exception {
    child = start("sleep " + marker + " & wait");
    awaitGrandchild();
    assertThat(child.terminate(SOON)).isEqualTo(128 + 15);
    // onExit completes only once the group is empty, so no wait here.
    assertThat(ProcessTable.sleeping(marker)).isEmpty();
  }

  @Test
  void signalGoesToTheWholeGroup() throws Exception {
    child = start("sleep " + marker + " & wait");
    awaitGrandchild();
    child.signal("USR1");
    assertThat(child.awaitOrKill(SOON)).isEqualTo(128 + 10);
    assertThat(ProcessTable.sleeping(marker)).isEmpty();
  }

  @Test
  void groupIgnoringSigtermIsKilledAfterTheStopTimeout() throws Exception {
    // An ignored signal stays ignored in children, so sleep ignores SIGTERM as well.
    child = start("trap '' TERM; sleep " + marker + " & wait");
    awaitGrandchild();
    long start = System.nanoTime();
    assertThat(child.terminate(Duration.ofMillis(500))).isEqualTo(128 + 9);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
        Duration.ofMillis(500));
    assertThat(ProcessTable.sleeping(marker)).isEmpty();
  }

  @Test
  void whatTheChildLeavesBehindIsEndedBeforeOnExitCompletes() throws Exception {
    child = start("sleep " + marker + " & exit 3");
    assertThat(child.onExit().get(SOON.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(3);
    assertThat(ProcessTable.sleeping(marker)).isEmpty();
  }

  @Test
  void reaperHoldsNoneOfOurOutputAndLeavesOnceTheGroupIsGone() throws Exception {
    child = start("sleep " + marker);
    ProcessHandle reaper = ProcessHandle.of(child.reaperPid()).orElseThrow();
    assertThat(reaper.info().arguments().map(List::of).orElseThrow()).contains("amlease-reaper");
    // Its stdout/stderr must not be ours: whoever reads our output until EOF would wait for it.
    for (int fd : new int[] {1, 2}) {
      assertThat(Files.readSymbolicLink(Path.of("/proc", Long.toString(reaper.pid()), "fd",
          Integer.toString(fd)))).hasToString("/dev/null");
    }
    // start() returned only once the reaper was out of our process group.
    assertThat(ProcessTable.sid(reaper.pid())).as("its own session").hasValue(reaper.pid());
    child.terminate(SOON);
    await().atMost(SOON).pollInterval(POLL).until(() -> !reaper.isAlive());
  }

  @Test
  void commandThatDoesNotExistFailsToStart() {
    String missing = dir.resolve("no-such-command").toString();
    assertThatThrownBy(() -> ChildProcess.start(List.of(missing, "arg"), Map.of()))
        .isInstanceOf(IOException.class).hasMessageContaining(missing);
    assertThatThrownBy(() -> ChildProcess.start(List.of("no-such-command-" + marker), Map.of()))
        .isInstanceOf(IOException.class).hasMessageContaining("no-such-command-" + marker);
  }

  /**
   * The runner died after it started COMMAND's gate but before it told the reaper the group: the
   * gate, stopped, never runs COMMAND, and the reaper finds it by its token and ends it.
   */
  @Test
  void aGateTheReaperWasNeverToldOfIsEndedAndNeverRunsCommand() throws Exception {
    Reaper reaper = Reaper.start(Duration.ofSeconds(1), SOON);
    Process gate = new ProcessBuilder("setsid", "--", "/bin/sh", "-c",
        "kill -s STOP $$ && exec \"$@\"", reaper.gateName(), "sleep", marker).start();
    try {
      ProcessGroup group = ProcessGroup.ledBy(gate, SOON);
      group.awaitStopped(gate, SOON);

      reaper.closePipeAsIfDead();

      assertThat(gate.waitFor(SOON.toMillis(), TimeUnit.MILLISECONDS)).as("gate ended").isTrue();
      assertThat(gate.exitValue()).isEqualTo(128 + 9);
      assertThat(ProcessTable.sleeping(marker)).as("COMMAND never ran").isEmpty();
      await().atMost(SOON).pollInterval(POLL)
          .until(() -> ProcessHandle.of(reaper.pid()).map(p -> !p.isAlive()).orElse(true));
    } finally {
      gate.destroyForcibly();
    }
  }

  /** Environment names that are not shell identifiers (Spark's, exported functions) get through. */
  @Test
  void environmentVariablesWithAnyNameReachCommand() throws Exception {
    ChildProcess c = ChildProcess.start(List.of("printenv", "spark.app.name"),
        Map.of("spark.app.name", "x"));
    assertThat(c.onExit().get(10, TimeUnit.SECONDS)).as("printenv found it").isZero();
  }

  private ChildProcess start(String script) throws IOException {
    return ChildProcess.start(List.of("sh", "-c", script), Map.of());
  }

  private void awaitGrandchild() {
    await().atMost(SOON).pollInterval(POLL).until(() -> ProcessTable.sleeping(marker).size() == 1);
  }
}
