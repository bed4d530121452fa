package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torture COMMAND for real, without ZooKeeper (a few seconds): every process of the tree
 * records, its stamps land on this JVM's nanoTime axis, and SIGTERM to the wrapper alone — what a
 * latch user's {@link Process#destroy()} sends — leaves its grandchildren acting.
 */
class ActorScriptTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  private final String token = "actor-script-test-" + ProcessHandle.current().pid() + "-"
      + System.nanoTime();

  @AfterEach
  void endEverything() {
    assertThat(Waits.until(() -> {
      List<Long> left = ProcessSignals.marked(token);
      left.forEach(pid -> ProcessSignals.killIfMarked(pid, token));
      return left.isEmpty();
    }, WITHIN)).as("every process of the tree ended").isTrue();
  }

  @Test
  void everyProcessOfTheTreeActsAndDestroyingTheWrapperOrphansTheRest(@TempDir Path dir)
      throws Exception {
    Path cmd = dir.resolve("h0.1").resolve("cmd-1");
    UptimeClock clock = UptimeClock.calibrate();
    long before = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(ActorScript.command(token, cmd, "/data"))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("TORTURE_TERM", "7");
    // Nothing listens there: the writer only stamps that it is alive.
    pb.environment().put("TORTURE_ZK", "127.0.0.1:1");
    Process wrapper = pb.start();

    assertThat(Waits.until(() -> spans(dir, clock).size() == 3, WITHIN)).as("three actors").isTrue();
    wrapper.destroy();
    assertThat(wrapper.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    long destroyed = System.nanoTime();
    assertThat(Waits.until(() -> spans(dir, clock).stream()
        .filter(s -> !s.role().equals(ActorScript.WRAPPER))
        .allMatch(s -> s.toNanos() - destroyed > Duration.ofMillis(500).toNanos()), WITHIN))
        .as("grandchild and writer act on after the wrapper's SIGTERM").isTrue();
    long after = System.nanoTime();

    ActorLogs.Command c = ActorLogs.commands(dir, clock).get(0);
    assertThat(c.localTerm()).isEqualTo(7);
    assertThat(c.actors()).extracting(ActorLogs.Span::role).containsExactlyInAnyOrder(
        ActorScript.WRAPPER, ActorScript.GRANDCHILD, ActorScript.WRITER);
    assertThat(c.actors()).allSatisfy(s -> {
      assertThat(s.fromNanos()).isGreaterThan(before);
      assertThat(s.toNanos()).isLessThan(after);
    });
    assertThat(c.actors()).filteredOn(s -> s.role().equals(ActorScript.WRAPPER)).singleElement()
        .satisfies(s -> assertThat(s.toNanos()).isLessThan(destroyed));
    assertThat(ProcessSignals.marked(token)).hasSizeGreaterThanOrEqualTo(2);
    assertThat(Files.readString(cmd.resolve("grandchild.pid")).strip()).isNotEmpty();
  }

  private static List<ActorLogs.Span> spans(Path dir, UptimeClock clock) {
    List<ActorLogs.Command> cs = ActorLogs.commands(dir, clock);
    return cs.isEmpty() ? List.of() : cs.get(0).actors();
  }
}
