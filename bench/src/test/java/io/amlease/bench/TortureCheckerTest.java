package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.bench.TortureChecker.Kind;
import io.amlease.bench.TortureHistory.Actor;
import io.amlease.bench.TortureHistory.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The torture checker on synthetic histories, one kind of violation at a time (no ZooKeeper): each
 * kind is found, named and measured; clean handovers, a COMMAND's own processes, and what the
 * tolerances allow are not violations; pauses excuse overlaps and orphans but never fencing.
 */
class TortureCheckerTest {
  private static final long MS = 1_000_000;
  private static final TortureChecker.Tolerances TOL = new TortureChecker.Tolerances(
      Duration.ofMillis(1500), Duration.ofSeconds(6));
  private static final long OPEN = Term.OPEN;

  private final List<Actor> actors = new ArrayList<>();
  private final List<Term> terms = new ArrayList<>();
  private final List<History.LeaderVersion> versions = new ArrayList<>();
  private final List<History.Write> writes = new ArrayList<>();
  private final List<History.Pause> pauses = new ArrayList<>();

  /** A term whose whole COMMAND tree (wrapper, grandchild, writer) acted from start to stop. */
  private void term(String holder, long term, long startMs, long endMs, long treeFromMs, long treeToMs) {
    terms.add(new Term(holder, term, startMs * MS, endMs == OPEN ? OPEN : endMs * MS));
    for (String role : List.of(ActorScript.WRAPPER, ActorScript.GRANDCHILD, ActorScript.WRITER)) {
      actors.add(new Actor(holder, term, role, treeFromMs * MS, treeToMs * MS));
    }
  }

  private final List<Long> deletions = new ArrayList<>();

  private TortureChecker.Verdict check() {
    return TortureChecker.check(new TortureHistory(0, actors, terms, versions, writes, pauses,
        deletions), TOL);
  }

  @Test
  void aCleanHandoverWithEveryProcessStoppedInTimeHasNoFindings() {
    term("h0.1", 1, 0, 5_000, 10, 5_200);
    term("h1.1", 2, 5_300, OPEN, 5_320, 9_000);
    versions.addAll(List.of(new History.LeaderVersion(10, 1), new History.LeaderVersion(20, 2)));
    writes.addAll(List.of(new History.Write("h0.1", 1, 1), new History.Write("h1.1", 2, 2)));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseExcused()).isEmpty();
  }

  @Test
  void theProcessesOfOneCommandActingTogetherAreNotAnOverlap() {
    term("h0.1", 1, 0, OPEN, 10, 9_000);

    assertThat(check().violations()).isEmpty();
  }

  @Test
  void aGrandchildOfTheOldTermActingBesideTheNewTermIsAnOverlap() {
    term("h0.1", 1, 0, 5_000, 10, 5_000);
    term("h1.1", 2, 5_300, OPEN, 5_320, 9_000);
    // Destroying the wrapper left its background shell running (a latch user's Process.destroy()).
    actors.add(new Actor("h0.1", 1, ActorScript.GRANDCHILD, 10 * MS, 6_000 * MS));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).filteredOn(f -> f.kind() == Kind.OVERLAP).singleElement()
        .satisfies(f -> {
          assertThat(f.nanos()).isEqualTo(680 * MS);
          assertThat(f.description()).contains("grandchild of h0.1 (term 1)", "h1.1 (term 2)",
              "680ms", "+5.320s");
        });
  }

  @Test
  void twoTermsOfOneHolderProcessOverlapLikeAnyTwoTerms() {
    // A latch holder lost its latch and won it back while its first COMMAND's writer ran on.
    term("h0.1", 1, 0, 2_000, 10, 2_000);
    term("h0.1", 2, 2_500, OPEN, 2_510, 9_000);
    actors.add(new Actor("h0.1", 1, ActorScript.WRITER, 10 * MS, 3_000 * MS));

    assertThat(check().byKind()).containsEntry(Kind.OVERLAP, 1);
  }

  @Test
  void anOverlapOnlyAsLongAsTheStampResolutionIsNotSeenBecauseSpansAreInnerBounds() {
    // ActorLogs already took one resolution off the start of the newer shell's span: what is left
    // touching the older span is no overlap.
    term("h0.1", 1, 0, 5_000, 10, 5_000);
    term("h1.1", 2, 4_990, OPEN, 5_000, 9_000);

    assertThat(check().violations()).isEmpty();
  }

  @Test
  void aProcessActingBeyondTheStopAllowanceAfterItsTermIsAnOrphan() {
    term("h0.1", 1, 0, 5_000, 10, 6_400);
    actors.add(new Actor("h0.1", 1, ActorScript.WRITER, 10 * MS, 7_000 * MS));

    TortureChecker.Verdict v = check();

    // The tree's shells stopped 1.4 s after the term (within the 1.5 s allowance); the writer not.
    assertThat(v.violations()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(Kind.ORPHAN);
      assertThat(f.nanos()).isEqualTo(500 * MS);
      assertThat(f.description()).contains("writer of h0.1 (term 1)", "+7.000s", "2.00s after",
          "+5.000s", "allowance 1.50s");
    });
  }

  @Test
  void aTermStillHeldAtTheEndHasNoOrphans() {
    term("h0.1", 1, 0, OPEN, 10, 60_000);

    assertThat(check().violations()).isEmpty();
  }

  @Test
  void anOverlapAfterAPauseOfTheOlderTermsHolderIsExcusedFromThePauseOn() {
    term("h0.1", 1, 0, 9_000, 10, 9_000);
    term("h1.1", 2, 7_000, OPEN, 7_010, 12_000);
    // h0.1 was stopped from 1 s to 8 s: its COMMAND acted on, its runner could not stop it.
    pauses.add(new History.Pause("h0.1", 1_000 * MS, 8_000 * MS));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseExcused()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(Kind.OVERLAP);
      assertThat(f.nanos()).isEqualTo(1_990 * MS);
      assertThat(f.description()).startsWith("after a pause of h0.1");
    });
    assertThat(v.pauseExcusedMaxMs()).isEqualTo(1990.0);
    assertThat(v.pauseExcusedRunnerOnly()).isEqualTo(1);
  }

  @Test
  void aPauseOfTheWholeTreeExcusesLikewiseAndSaysSo() {
    long second = LaneHistory.PER_INCARNATION + 1;
    term("h0.1", 1, 0, 9_000, 10, 9_000);
    term("h1.1", second, 7_000, OPEN, 7_010, 12_000);
    pauses.add(new History.Pause("h0.1", 1_000 * MS, 8_000 * MS, true));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseExcused()).singleElement().satisfies(f -> {
      assertThat(f.wholeTree()).isTrue();
      assertThat(f.description()).startsWith("after a whole-tree pause of h0.1");
    });
    assertThat(v.pauseExcusedRunnerOnly()).isZero();
  }

  @Test
  void theOverlapBeforeThePauseBeganIsStillAViolation() {
    term("h0.1", 1, 0, 9_000, 10, 9_000);
    term("h1.1", 2, 3_000, OPEN, 3_010, 12_000);
    pauses.add(new History.Pause("h0.1", 5_000 * MS, 8_000 * MS));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).singleElement().satisfies(f -> assertThat(f.nanos())
        .isEqualTo(1_990 * MS));
    assertThat(v.pauseExcused()).singleElement().satisfies(f -> assertThat(f.nanos())
        .isEqualTo(4_000 * MS));
  }

  @Test
  void aPauseOfTheNewerTermsHolderOrOneLongBeforeExcusesNothing() {
    term("h0.1", 1, 20_000, 29_000, 20_010, 29_000);
    term("h1.1", 2, 27_000, OPEN, 27_010, 32_000);
    pauses.add(new History.Pause("h1.1", 21_000 * MS, 26_000 * MS));
    // Ended more than one session timeout (6 s) before h0.1's term began.
    pauses.add(new History.Pause("h0.1", 1_000 * MS, 13_000 * MS));

    TortureChecker.Verdict v = check();

    assertThat(v.byKind()).containsEntry(Kind.OVERLAP, 1);
    assertThat(v.pauseExcused()).isEmpty();
  }

  @Test
  void anOrphanWhoseRunnerWasStoppedWhileStoppingItIsExcused() {
    term("h0.1", 1, 0, 5_000, 10, 9_000);
    pauses.add(new History.Pause("h0.1", 5_100 * MS, 8_900 * MS));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).isEmpty();
    assertThat(v.pauseExcused()).hasSize(3).allSatisfy(f -> assertThat(f.kind()).isEqualTo(Kind.ORPHAN));
  }

  @Test
  void aPauseDuringTheTermDoesNotExcuseAnOrphanLeftAfterIt() {
    // A latch holder paused mid-term, then destroyed its wrapper on notLeader: the grandchild's
    // survival has nothing to do with the pause.
    term("h0.1", 1, 0, 5_000, 10, 5_000);
    actors.add(new Actor("h0.1", 1, ActorScript.GRANDCHILD, 10 * MS, 9_000 * MS));
    pauses.add(new History.Pause("h0.1", 1_000 * MS, 4_000 * MS));

    assertThat(check().byKind()).containsEntry(Kind.ORPHAN, 1);
  }

  @Test
  void aSupersededWriteIsAViolationEvenAfterAPause() {
    term("h0.1", 1, 0, 9_000, 10, 9_000);
    term("h1.1", 2, 7_000, OPEN, 7_010, 12_000);
    pauses.add(new History.Pause("h0.1", 1_000 * MS, 8_000 * MS));
    writes.addAll(List.of(new History.Write("h0.1", 1, 5), new History.Write("h1.1", 2, 6),
        new History.Write("h0.1", 1, 7)));

    TortureChecker.Verdict v = check();

    assertThat(v.violations()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(Kind.SUPERSEDED_WRITE);
      assertThat(f.description()).contains("1 write of h0.1 (term 1) accepted",
          "first at version 7, after h1.1 had written in term 2");
    });
  }

  @Test
  void anOrphanWritersManySupersededWritesAreOneViolation() {
    writes.addAll(List.of(new History.Write("h0.1", 1, 1), new History.Write("h1.1", 2, 2),
        new History.Write("h0.1", 1, 3), new History.Write("h0.1", 1, 4),
        new History.Write("h2.1", 3, 5), new History.Write("h1.1", 2, 6)));

    TortureChecker.Verdict v = check();

    assertThat(v.byKind()).containsEntry(Kind.SUPERSEDED_WRITE, 2);
    assertThat(v.violations()).extracting(TortureChecker.Finding::description).containsExactly(
        "superseded writes: 2 writes of h0.1 (term 1) accepted, the first at version 3, after h1.1 "
            + "had written in term 2",
        "superseded writes: 1 write of h1.1 (term 2) accepted, the first at version 6, after h2.1 "
            + "had written in term 3");
  }

  @Test
  void anEpochGoingBackwardsInTheLeaderNodeIsAViolation() {
    versions.addAll(List.of(new History.LeaderVersion(30, 3), new History.LeaderVersion(40, 2)));

    assertThat(check().violations()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(Kind.EPOCH_BACKWARDS);
      assertThat(f.description()).contains("epoch 2 after epoch 3");
    });
  }

  @Test
  void epochsBegunAgainAfterTheWholeLeaseWasDeletedAreNotBackwardsButWithinAStretchTheyAre() {
    // Epoch 3, a deleteall at zxid 45, epoch 1 and 2 of the new incarnation, then 1 again.
    versions.addAll(List.of(new History.LeaderVersion(30, 3), new History.LeaderVersion(50, 1),
        new History.LeaderVersion(60, 2), new History.LeaderVersion(70, 1)));
    deletions.add(45L);

    assertThat(check().violations()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(Kind.EPOCH_BACKWARDS);
      assertThat(f.description()).contains("zxid 0x46", "epoch 1 after epoch 2");
    });
  }

  @Test
  void violationsAreCountedByKind() {
    term("h0.1", 1, 0, 5_000, 10, 8_000);
    term("h1.1", 2, 5_300, OPEN, 5_320, 9_000);
    versions.addAll(List.of(new History.LeaderVersion(30, 2), new History.LeaderVersion(40, 1)));

    assertThat(check().byKind()).containsEntry(Kind.OVERLAP, 1).containsEntry(Kind.ORPHAN, 3)
        .containsEntry(Kind.EPOCH_BACKWARDS, 1).containsEntry(Kind.SUPERSEDED_WRITE, 0);
  }
}
