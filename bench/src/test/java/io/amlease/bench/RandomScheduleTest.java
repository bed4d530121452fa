package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RandomScheduleTest {
  private static final Duration T = Duration.ofSeconds(4);

  @Test
  void aSeedAlwaysGivesTheSameSchedule() {
    assertThat(RandomSchedule.generate(42, T, Duration.ofSeconds(30)))
        .isEqualTo(RandomSchedule.generate(42, T, Duration.ofSeconds(30)));
    assertThat(RandomSchedule.generate(42, T, Duration.ofSeconds(30)))
        .isNotEqualTo(RandomSchedule.generate(43, T, Duration.ofSeconds(30)));
  }

  @Test
  void faultsFitTheTrialAndSpanBlipsToPartitions() {
    for (long seed = 0; seed < 50; seed++) {
      RandomSchedule s = RandomSchedule.generate(seed, T, Duration.ofSeconds(30));
      assertThat(s.holders()).isBetween(2, 3);
      long total = s.steps().stream().mapToLong(st -> st.gapBefore().plus(st.duration()).toMillis()).sum();
      assertThat(total).isLessThanOrEqualTo(30_000);
      s.steps().forEach(st -> {
        assertThat(st.holder()).isBetween(0, s.holders() - 1);
        if (st.kind() != RandomSchedule.Kind.SERVER_RESTART) {
          assertThat(st.duration()).isBetween(T.dividedBy(10), T.multipliedBy(5).dividedBy(2));
        }
      });
    }
  }

  @Test
  void schedulesMixEveryKindOfFault() {
    Set<RandomSchedule.Kind> seen = EnumSet.noneOf(RandomSchedule.Kind.class);
    for (long seed = 0; seed < 50; seed++) {
      RandomSchedule.generate(seed, T, Duration.ofSeconds(30)).steps().forEach(st -> seen.add(st.kind()));
    }
    assertThat(seen).containsExactlyInAnyOrder(RandomSchedule.Kind.values());
  }

  @Test
  void theQuickRunsSeedsPauseAHolder() {
    // --quick runs seeds 1 and 2 at T = 4 s for 20 s: at least one of them must exercise pauses.
    assertThat(LongStream.of(1, 2).mapToObj(seed -> RandomSchedule.generate(seed, T, Duration.ofSeconds(20)))
        .flatMap(s -> s.steps().stream()).map(RandomSchedule.Step::kind))
        .contains(RandomSchedule.Kind.PAUSE);
  }
}
