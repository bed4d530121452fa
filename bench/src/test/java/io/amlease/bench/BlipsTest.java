package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which blips G1 covers, at T = 10 s: grace 6.67 s, renew interval 1.67 s, so 5.0 s out of touch. */
class BlipsTest {
  private static final LeaseTiming TIMING = AmleaseParticipant.defaultTiming(Duration.ofSeconds(10));

  private static boolean within(Blips.Kind kind, long millis) {
    return Blips.withinG1(new Blips.Blip(kind, Duration.ofMillis(millis)), TIMING);
  }

  @Test
  void aSilentBlipIsOutOfTouchForItsOwnLength() {
    assertThat(within(Blips.Kind.SILENT, 4_999)).isTrue();
    assertThat(within(Blips.Kind.SILENT, 5_000)).isFalse();
  }

  @Test
  void aResetCountsOneSecondMoreForZooKeepersReconnectJitter() {
    assertThat(within(Blips.Kind.RESET, 3_999)).isTrue();
    assertThat(within(Blips.Kind.RESET, 4_000)).isFalse();
    assertThat(within(Blips.Kind.RESET, 4_750)).isFalse();
  }
}
