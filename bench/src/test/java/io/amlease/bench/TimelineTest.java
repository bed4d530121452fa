package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The acting intervals the history checker is fed: pairing of edges and clipping at the trial's end. */
class TimelineTest {

  @Test
  void edgesPairIntoIntervalsAndOpenOnesEndAtTheTrialsEnd() {
    Timeline t = new Timeline();
    t.started("a", 1);
    t.stopped("a", 1);
    t.started("b", 2);
    long end = System.nanoTime();
    t.stopped("b", 2);
    t.started("a", 3);

    List<History.Interval> intervals = t.intervals(end);

    assertThat(intervals).extracting(History.Interval::holder, History.Interval::epoch)
        .containsExactly(tuple("a", 1L), tuple("b", 2L));
    assertThat(intervals.get(1).stopNanos()).isEqualTo(end);
    assertThat(intervals.get(0).stopNanos()).isGreaterThanOrEqualTo(intervals.get(0).startNanos());
  }

  @Test
  void latchTermsAreNumberedInTheOrderHoldersBeganActing() {
    Timeline t = new Timeline();
    long before = System.nanoTime();

    assertThat(t.startedNextTerm("b")).isEqualTo(1);
    t.stopped("b", 1);
    assertThat(t.startedNextTerm("a")).isEqualTo(2);
    assertThat(t.first("a", Timeline.Edge.START, before).orElseThrow().epoch()).isEqualTo(2);
  }

  @Test
  void edgesStampedElsewhereAreKeptWithTheirStampsAndPassedOn() {
    List<Timeline.Event> passedOn = new java.util.ArrayList<>();
    Timeline t = new Timeline(passedOn::add);
    t.record(new Timeline.Event("b", Timeline.Edge.START, 1, 500));
    t.record(new Timeline.Event("a", Timeline.Edge.START, 1, 100));
    t.record(new Timeline.Event("a", Timeline.Edge.STOP, 1, 300));

    assertThat(t.intervals(1000)).containsExactlyInAnyOrder(new History.Interval("a", 1, 100, 300),
        new History.Interval("b", 1, 500, 1000));
    assertThat(passedOn).hasSize(3);
  }
}
