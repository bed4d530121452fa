package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The torture mode's clock-rate faults, on Debian's real {@code faketime}: a faked JVM's
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
    List<String> cmd = new ArrayList<>(HolderClock.prefix(2.0));
    cmd.addAll(List.of(ChildJvm.java(), "-cp", System.getProperty("java.class.path"),
        ClockRateProbe.class.getName()));
    long launch = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String[] w = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip()
        .split("\\s+");
    long truth = real.toNanos(Long.parseLong(w[2]));
    long mapped = c.toBench(launch, Long.parseLong(w[3]));
    // Off by the two launches' latencies times (1 − 1/R): a few milliseconds.
    assertThat(Math.abs(mapped - truth)).as("mapped − truth, ns").isLessThan(50_000_000L);
  }

  @Test
  void aRateThatIsNotWhatWasAskedIsRefused() {
    // faketime takes "x0.000" as no speed at all; the probe must see that it is not 0.
    assertThatThrownBy(() -> HolderClock.probe(0.0001, UptimeClock.calibrate()))
        .isInstanceOf(IllegalStateException.class);
  }
}
