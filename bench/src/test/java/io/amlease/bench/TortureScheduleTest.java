package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TortureScheduleTest {
  private static final Duration T = Duration.ofSeconds(6);
  private static final Duration LENGTH = T.multipliedBy(4);

  @Test
  void aSeedAlwaysGivesTheSameSchedule() {
    assertThat(TortureSchedule.generate(17, T, LENGTH)).isEqualTo(TortureSchedule.generate(17, T, LENGTH));
    assertThat(TortureSchedule.generate(17, T, LENGTH)).isNotEqualTo(TortureSchedule.generate(18, T, LENGTH));
  }

  @Test
  void eachTrackFitsTheTrialAndHoldsOnlyItsOwnKindsOfFault() {
    for (long seed = 0; seed < 100; seed++) {
      TortureSchedule s = TortureSchedule.generate(seed, T, LENGTH);
      assertThat(s.holders()).isBetween(2, 3);
      for (List<TortureSchedule.Step> track : List.of(s.ensemble(), s.holderFaults())) {
        long total = track.stream().mapToLong(st -> st.gapBefore().plus(st.duration()).toMillis()).sum();
        assertThat(total).isLessThanOrEqualTo(LENGTH.toMillis());
      }
      assertThat(s.ensemble()).allSatisfy(st -> assertThat(st.kind().ensembleWide()).isTrue());
      assertThat(s.holderFaults()).allSatisfy(st -> {
        assertThat(st.kind().ensembleWide()).isFalse();
        assertThat(st.holder()).isBetween(0, s.holders() - 1);
      });
      assertThat(s.allSteps()).allSatisfy(st ->
          assertThat(st.duration()).isLessThanOrEqualTo(T.multipliedBy(5).dividedBy(2)));
    }
  }

  @Test
  void schedulesMixEveryKindOfFaultAndSomeOutlastTheSessionTimeout() {
    Set<TortureSchedule.Kind> seen = EnumSet.noneOf(TortureSchedule.Kind.class);
    long longerThanT = 0;
    for (long seed = 0; seed < 50; seed++) {
      for (TortureSchedule.Step st : TortureSchedule.generate(seed, T, LENGTH).allSteps()) {
        seen.add(st.kind());
        longerThanT += st.duration().compareTo(T) > 0 ? 1 : 0;
      }
    }
    assertThat(seen).containsExactlyInAnyOrder(TortureSchedule.Kind.values());
    assertThat(longerThanT).as("faults long enough for a session to expire").isPositive();
  }
}
