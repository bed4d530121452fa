package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading what a holder process and its COMMAND's processes recorded (files only). */
class ActorLogsTest {
  private static final long MS = 1_000_000;
  /** An offset of 0: boottime and nanoTime agree, so 100.00 s of uptime is 100e9 nanos. */
  private static final UptimeClock CLOCK = new UptimeClock(0);

  @Test
  void aShellSpanStartsOneResolutionAfterItsFirstStampAndEndsAtItsLast() {
    assertThat(ActorLogs.shellSpan("wrapper", "100.00\n100.05\n100.10\n", CLOCK)).hasValue(
        new ActorLogs.Span("wrapper", 100_010 * MS, 100_100 * MS));
  }

  @Test
  void aLastLineCutShortByAKillIsNotAStamp() {
    assertThat(ActorLogs.shellSpan("grandchild", "100.00\n100.05\n100.1", CLOCK)).hasValue(
        new ActorLogs.Span("grandchild", 100_010 * MS, 100_050 * MS));
  }

  @Test
  void oneStampIsNoSpan() {
    assertThat(ActorLogs.shellSpan("wrapper", "100.00\n", CLOCK)).isEmpty();
    assertThat(ActorLogs.shellSpan("wrapper", "", CLOCK)).isEmpty();
  }

  @Test
  void aCommandsTermActorsAndAcceptedWritesAreRead(@TempDir Path lane) throws Exception {
    Path cmd = Files.createDirectories(lane.resolve("h0.2").resolve("cmd-1"));
    Files.writeString(cmd.resolve("term"), "3 i-7c1e\n");
    Files.writeString(cmd.resolve("wrapper.up"), "100.00\n100.05\n");
    Files.writeString(cmd.resolve("wrapper.pid"), "1234\n");
    Files.writeString(cmd.resolve("writer.log"),
        "A 100200000000\nW 7 100210000000\nA 100250000000\nF 100260000000\nA 100300000000\nW 8 1003");
    // A COMMAND killed before it wrote its term is no record.
    Files.createDirectories(lane.resolve("h1.1").resolve("cmd-1"));

    List<ActorLogs.Command> commands = ActorLogs.commands(lane, CLOCK);

    assertThat(commands).singleElement().satisfies(c -> {
      assertThat(c.life()).isEqualTo("h0.2");
      assertThat(c.localTerm()).isEqualTo(3);
      assertThat(c.incarnation()).isEqualTo("i-7c1e");
      assertThat(c.actors()).containsExactlyInAnyOrder(
          new ActorLogs.Span("wrapper", 100_010 * MS, 100_050 * MS),
          new ActorLogs.Span("writer", 100_200 * MS, 100_300 * MS));
      assertThat(c.writes()).containsExactly(new ActorLogs.Write(7, 100_210 * MS));
    });
  }

  @Test
  void edgesAreReadFromHoldsEventLogAndALatchHoldersLikewise(@TempDir Path life) throws Exception {
    // hold's log4j2 pattern "%N %X{event} %X{epoch} %X{incarnation} %X{reason}"; a latch holder
    // writes no incarnation; renewal failures are not edges.
    String inc = "i-5b0c6f0e-8d1a-4c43";
    Files.writeString(life.resolve(ActorLogs.EDGES), "500 granted 4 " + inc + " \n"
        + "600 renewal_failed 4 " + inc + " \n700 revoked 4 " + inc + " GRACE_EXPIRED\n"
        + "800 granted 5 \n900 revoked 5 SUPERSEDED\n");

    assertThat(ActorLogs.edges(life)).containsExactly(new ActorLogs.Edge(500, true, 4, inc),
        new ActorLogs.Edge(700, false, 4, inc),
        new ActorLogs.Edge(800, true, 5, ActorLogs.NO_INCARNATION),
        new ActorLogs.Edge(900, false, 5, ActorLogs.NO_INCARNATION));
  }
}
