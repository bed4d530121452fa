package io.amlease.am.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the AM obtains fresh delegation tokens (SecureYarnIT runs it on a kerberized cluster). */
class TokenRefresherTest {
  @Test
  void threeQuartersOfTheRenewIntervalAndNeverBelowASecond() {
    assertThat(TokenRefresher.nextRound(List.of(), Duration.ofHours(24), 0))
        .isEqualTo(Duration.ofHours(18));
    assertThat(TokenRefresher.nextRound(List.of(), Duration.ofSeconds(15), 0))
        .isEqualTo(Duration.ofMillis(11_250));
    assertThat(TokenRefresher.nextRound(List.of(), Duration.ofMillis(100), 0))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aFailedRoundIsRetriedWithinAQuarterOfTheRenewIntervalAndAtMostAMinute() {
    assertThat(TokenRefresher.retryDelay(Duration.ofSeconds(10)))
        .isEqualTo(Duration.ofMillis(2500));
    assertThat(TokenRefresher.retryDelay(Duration.ofHours(24))).isEqualTo(Duration.ofMinutes(1));
    assertThat(TokenRefresher.retryDelay(Duration.ofMillis(100))).isEqualTo(Duration.ofSeconds(1));
  }
}
