package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
  private static final long MS = 1_000_000;

  @Test
  void aCleanHandoverHistoryHasNoViolations() {
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 100 * MS), new History.Interval("b", 2, 150 * MS, 400 * MS)),
        List.of(new History.LeaderVersion(10, 1), new History.LeaderVersion(20, 2)),
        List.of(new History.Write("a", 1, 0), new History.Write("a", 1, 1), new History.Write("b", 2, 2)));

    assertThat(HistoryChecker.violations(h)).isEmpty();
  }

  @Test
  void twoLeadersAtOnceAreDetected() {
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 300 * MS), new History.Interval("b", 2, 100 * MS, 400 * MS)),
        List.of(), List.of());

    assertThat(HistoryChecker.violations(h)).singleElement().asString()
        .contains("two leaders", "a (epoch 1)", "b (epoch 2)", "200 ms");
  }

  @Test
  void oneHolderReacquiringIsNotAnOverlap() {
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 100 * MS), new History.Interval("a", 2, 50 * MS, 200 * MS)),
        List.of(), List.of());

    assertThat(HistoryChecker.violations(h)).isEmpty();
  }

  @Test
  void anEpochGoingBackwardsInTheLeaderNodeIsDetected() {
    History h = new History(List.of(),
        List.of(new History.LeaderVersion(30, 3), new History.LeaderVersion(10, 1),
            new History.LeaderVersion(40, 2)),
        List.of());

    assertThat(HistoryChecker.violations(h)).singleElement().asString()
        .contains("epoch went backwards", "epoch 2 after epoch 3");
  }

  @Test
  void aWriteFromASupersededEpochAfterTheNewEpochWroteIsDetected() {
    History h = new History(List.of(), List.of(),
        List.of(new History.Write("a", 1, 0), new History.Write("b", 2, 1), new History.Write("a", 1, 2)));

    assertThat(HistoryChecker.violations(h)).singleElement().asString()
        .contains("superseded write", "a wrote in epoch 1 (version 2)", "b had written in epoch 2");
  }

  @Test
  void aStoppedHolderDoesNotActWhileStopped() {
    // a's callbacks say it acted 0–1000 ms, but its process was stopped 100–900 ms; b acted within.
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 1000 * MS), new History.Interval("b", 2, 200 * MS, 700 * MS)),
        List.of(), List.of(), List.of(new History.Pause("a", 100 * MS, 900 * MS)));

    HistoryChecker.Verdict v = HistoryChecker.check(h);

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseOverlaps()).isEmpty();
  }

  @Test
  void anOverlapBeforeThePauseIsStillTwoLeaders() {
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 1000 * MS), new History.Interval("b", 2, 200 * MS, 400 * MS)),
        List.of(), List.of(), List.of(new History.Pause("a", 300 * MS, 900 * MS)));

    HistoryChecker.Verdict v = HistoryChecker.check(h);

    assertThat(v.violations()).singleElement().asString()
        .contains("two leaders", "a (epoch 1)", "b (epoch 2)", "100 ms");
    assertThat(v.pauseOverlaps()).isEmpty();
  }

  @Test
  void actingOnAfterResumingIsAPauseOverlapNotAViolation() {
    // a was stopped 100–600 ms; b took over at 400 ms; a noticed only at 800 ms.
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 800 * MS), new History.Interval("b", 2, 400 * MS, 1000 * MS)),
        List.of(new History.LeaderVersion(10, 1), new History.LeaderVersion(20, 2)),
        List.of(new History.Write("a", 1, 0), new History.Write("b", 2, 1)),
        List.of(new History.Pause("a", 100 * MS, 600 * MS)));

    HistoryChecker.Verdict v = HistoryChecker.check(h);

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseOverlaps()).singleElement().satisfies(o -> {
      assertThat(o.nanos()).isEqualTo(200 * MS);
      assertThat(o.description()).contains("after a pause", "a (epoch 1)", "b (epoch 2)", "200 ms");
    });
    assertThat(v.pauseOverlapMaxMs()).isEqualTo(200.0);
  }

  @Test
  void aSupersededWriteAfterAPauseIsStillAViolation() {
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 800 * MS), new History.Interval("b", 2, 400 * MS, 1000 * MS)),
        List.of(),
        List.of(new History.Write("a", 1, 0), new History.Write("b", 2, 1), new History.Write("a", 1, 2)),
        List.of(new History.Pause("a", 100 * MS, 600 * MS)));

    HistoryChecker.Verdict v = HistoryChecker.check(h);

    assertThat(v.violations()).singleElement().asString().contains("superseded write");
    assertThat(v.supersededWrites()).isEqualTo(1);
    assertThat(v.pauseOverlaps()).hasSize(1);
  }

  @Test
  void aPauseOfTheOtherHolderOrOutsideTheIntervalExplainsNothing() {
    // b was stopped before its interval began, a not at all: their overlap is two leaders.
    History h = new History(
        List.of(new History.Interval("a", 1, 0, 500 * MS), new History.Interval("b", 2, 300 * MS, 900 * MS)),
        List.of(), List.of(), List.of(new History.Pause("b", 50 * MS, 250 * MS)));

    HistoryChecker.Verdict v = HistoryChecker.check(h);

    assertThat(v.violations()).singleElement().asString().contains("200 ms");
    assertThat(v.pauseOverlaps()).isEmpty();
  }
}
