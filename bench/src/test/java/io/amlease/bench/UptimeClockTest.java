package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class UptimeClockTest {

  @Test
  void uptimeIsReadInCentiseconds() {
    assertThat(UptimeClock.centis("9317.27 11589.02\n")).isEqualTo(931_727);
    assertThat(UptimeClock.centis("12.05")).isEqualTo(1_205);
    assertThatThrownBy(() -> UptimeClock.centis("12.5")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStampReadNowConvertsToWithinOneResolutionBeforeNow() throws Exception {
    UptimeClock clock = UptimeClock.calibrate();
    for (int i = 0; i < 20; i++) {
      long before = System.nanoTime();
      long stamp = clock.toNanos(UptimeClock.centis(Files.readString(Path.of("/proc/uptime"))));
      long after = System.nanoTime();
      // The stamp truncates: the read happened in [stamp, stamp + 10 ms).
      assertThat(stamp).isLessThanOrEqualTo(after + 1_000_000)
          .isGreaterThan(before - UptimeClock.RESOLUTION.toNanos() - 1_000_000);
      Thread.sleep(3);
    }
  }
}
