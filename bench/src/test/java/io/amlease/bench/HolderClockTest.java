package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torture mode's clock-rate faults, on Debian's real libfaketime: a faked JVM's
 * {@code nanoTime} runs at the rate asked, and its stamps map back onto the bench's clock.
 */
class HolderClockTest {

  @Test
  void aRealClockMapsToItself() {
    assertThat(HolderClock.REAL.toBench(123, 456_789)).isEqualTo(456_789);
  }

  @Test
  void aStampOfAProcessLaunchedLaterMapsBackWithTheSameOffset() {
    HolderClock c = new HolderClock(2, 5_000, 2);
    long launch = 1_000_000;
    // Read 300 ns after launch on the bench's clock: launch + offset + 2 × 300.
    assertThat(c.toBench(launch, launch + 5_000 + 600)).isEqualTo(launch + 300);
  }

  @Test
  void theProbeMeasuresTheRateAndAnotherFakedProcesssStampsLandOnTheBenchClock() throws Exception {
    UptimeClock real = UptimeClock.calibrate();
    HolderClock c = HolderClock.probe(2.0, real);
    assertThat(c.measuredRate()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.01));

    // A second process under the same faketime, launched later, as a holder's next life would be.
    List<String> cmd = List.of(ChildJvm.java(), "-cp", System.getProperty("java.class.path"),
        ClockRateProbe.class.getName());
    long launch = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(HolderClock.environment(2.0));
    Process p = pb.start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String[] w = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()
        .split("\\s+");
    long truth = real.toNanos(Long.parseLong(w[2]));
    long mapped = c.toBench(launch, Long.parseLong(w[3]));
    // Off by the two launches' latencies times (1 − 1/R): a few milliseconds.
    assertThat(Math.abs(mapped - truth)).as("mapped − truth, ns").isLessThan(50_000_000L);
  }

  /**
   * A kill-holder fault on a faked holder kills the holder: the process the bench holds is the
   * JVM itself, not a wrapper that forks it (Debian's {@code faketime} forks and waits, and its
   * SIGKILL left the holder running while the bench counted its term as ended).
   */
  @Test
  void aFakedHolderIsTheProcessTheBenchKills(@TempDir Path dir) throws Exception {
    SupervisedHolder.Launcher launcher = TortureLaunchers.of(Contender.CURATOR_DEFAULT,
        "127.0.0.1:1", "/torture/clock", "data", Duration.ofSeconds(4), Duration.ofSeconds(1),
        "token", Optional.of(1.05));
    Process p = launcher.launch("h0.1", dir);
    try {
      assertThat(p.info().command()).as("the launched process").hasValueSatisfying(
          c -> assertThat(c).endsWith("/java"));
      List<ProcessHandle> tree = p.descendants().toList();
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      for (ProcessHandle h : tree) {
        assertThat(h.onExit().get(30, TimeUnit.SECONDS).isAlive()).as("pid " + h.pid()).isFalse();
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  @Test
  void aRateThatIsNotWhatWasAskedIsRefused() {
    // faketime takes "x0.000" as no speed at all; the probe must see that it is not 0.
    assertThatThrownBy(() -> HolderClock.probe(0.0001, UptimeClock.calibrate()))
        .isInstanceOf(IllegalStateException.class);
  }
}
