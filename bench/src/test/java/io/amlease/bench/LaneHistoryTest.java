package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** From holder processes' edges and COMMAND records to the history the checker reads. */
class LaneHistoryTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aKilledHoldersOpenTermEndsWhenItWasKilledAndTheTrialsEndCutsTheRest(@TempDir Path lane)
      throws Exception {
    SupervisedHolder.Life a = life(lane, "h0.1", 0, "1000 granted 3 \n2000 revoked 3 SUPERSEDED\n");
    SupervisedHolder.Life b = life(lane, "h1.1", 0, "3000 granted 4 \n");
    b.killedNanos = 5 * S;
    SupervisedHolder.Life c = life(lane, "h2.1", 0, "6000 granted 5 \n");
    List<ActorLogs.Command> commands = List.of(
        new ActorLogs.Command("h1.1", lane, 4, ActorLogs.NO_INCARNATION, List.of(new ActorLogs.Span("writer", 3 * S, 9 * S)),
            List.of(new ActorLogs.Write(1, 4 * S), new ActorLogs.Write(2, 9 * S))));

    TortureHistory h = LaneHistory.of(Contender.AMLEASE, List.of(a, b, c), commands, List.of(),
        List.of(), 0, 8 * S);

    assertThat(h.terms()).containsExactly(new TortureHistory.Term("h0.1", 3, 1000, 2000),
        new TortureHistory.Term("h1.1", 4, 3000, 5 * S), new TortureHistory.Term("h2.1", 5, 6000,
            TortureHistory.Term.OPEN));
    assertThat(h.actors()).containsExactly(new TortureHistory.Actor("h1.1", 4, "writer", 3 * S, 8 * S));
    assertThat(h.writes()).containsExactly(new History.Write("h1.1", 4, 1));
  }

  @Test
  void latchTermsAreNumberedAcrossTheLaneInTheOrderTheyBegan(@TempDir Path lane) throws Exception {
    SupervisedHolder.Life a = life(lane, "h0.1", 0, "100 granted 1\n200 revoked 1\n500 granted 2\n");
    SupervisedHolder.Life b = life(lane, "h1.1", 0, "300 granted 1\n400 revoked 1\n");
    List<ActorLogs.Command> commands = List.of(
        new ActorLogs.Command("h0.1", lane, 2, ActorLogs.NO_INCARNATION, List.of(new ActorLogs.Span("wrapper", 510, 600)),
            List.of()));

    TortureHistory h = LaneHistory.of(Contender.CURATOR_DEFAULT, List.of(a, b), commands, List.of(),
        List.of(), 0, S);

    assertThat(h.terms()).extracting(TortureHistory.Term::holder, TortureHistory.Term::term)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("h0.1", 1L),
            org.assertj.core.groups.Tuple.tuple("h1.1", 2L),
            org.assertj.core.groups.Tuple.tuple("h0.1", 3L));
    assertThat(h.actors()).singleElement().extracting(TortureHistory.Actor::term).isEqualTo(3L);
  }

  @Test
  void aCommandWithoutAGrantEdgeGetsATermFromItsFirstStamp(@TempDir Path lane) throws Exception {
    SupervisedHolder.Life a = life(lane, "h0.1", 0, "");
    a.killedNanos = 700;
    List<ActorLogs.Command> commands = List.of(
        new ActorLogs.Command("h0.1", lane, 6, ActorLogs.NO_INCARNATION, List.of(new ActorLogs.Span("wrapper", 510, 900)),
            List.of()));

    TortureHistory h = LaneHistory.of(Contender.AMLEASE, List.of(a), commands, List.of(), List.of(),
        0, S);

    assertThat(h.terms()).containsExactly(new TortureHistory.Term("h0.1", 6, 510, 700));
  }

  @Test
  void epochsStartedAgainInANewIncarnationAreLaterTermsAndTheirOverlapShows(@TempDir Path lane)
      throws Exception {
    // An operator's deleteall under h0.1 (paused): h1.1 is granted epoch 1 of a new incarnation
    // while h0.1's COMMAND, of epoch 1 of the old one, still acts.
    String old = "i-old";
    String fresh = "i-new";
    SupervisedHolder.Life a = life(lane, "h0.1", 0, "100 granted 1 " + old + "\n");
    SupervisedHolder.Life b = life(lane, "h1.1", 0, "300 granted 1 " + fresh + "\n");
    List<ActorLogs.Command> commands = List.of(
        new ActorLogs.Command("h0.1", lane, 1, old, List.of(new ActorLogs.Span("writer", 110, 500)),
            List.of(new ActorLogs.Write(3, 450))),
        new ActorLogs.Command("h1.1", lane, 1, fresh,
            List.of(new ActorLogs.Span("writer", 310, 600)), List.of(new ActorLogs.Write(2, 320))));

    TortureHistory h = LaneHistory.of(Contender.AMLEASE, List.of(a, b), commands, List.of(),
        List.of(), 0, S);

    long second = LaneHistory.PER_INCARNATION + 1;
    assertThat(h.terms()).containsExactlyInAnyOrder(
        new TortureHistory.Term("h0.1", 1, 100, TortureHistory.Term.OPEN),
        new TortureHistory.Term("h1.1", second, 300, TortureHistory.Term.OPEN));
    assertThat(h.actors()).extracting(TortureHistory.Actor::term).containsExactlyInAnyOrder(1L,
        second);
    assertThat(h.writes()).containsExactlyInAnyOrder(new History.Write("h0.1", 1, 3),
        new History.Write("h1.1", second, 2));
  }

  private static SupervisedHolder.Life life(Path lane, String name, long start, String edges)
      throws Exception {
    Path dir = Files.createDirectories(lane.resolve(name));
    Files.writeString(dir.resolve(ActorLogs.EDGES), edges);
    return new SupervisedHolder.Life(name, dir, null, start, start, HolderClock.REAL);
  }
}
