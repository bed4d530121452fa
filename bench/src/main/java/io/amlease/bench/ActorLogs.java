package io.amlease.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads what a torture holder's processes recorded, from the directory layout the lane gives them:
 * <pre>
 * LANE/LIFE/edges.log          one holder process's terms: "nanos granted|revoked term [incarnation …]"
 * LANE/LIFE/cmd-N/term         the term of the N-th COMMAND that process started [and its incarnation]
 * LANE/LIFE/cmd-N/ROLE.up      a shell actor's /proc/uptime stamps ({@link ActorScript})
 * LANE/LIFE/cmd-N/writer.log   the writer's stamps and writes ({@link TortureWriter})
 * LANE/LIFE/cmd-N/ROLE.pid     each actor's pid
 * </pre>
 * A LIFE is one holder process (its name: slot and launch number, {@code h1.3}), since a holder that
 * is killed or loses its term comes back as a new process.
 */
final class ActorLogs {
  static final String EDGES = "edges.log";
  private static final String UP = ".up";

  /**
   * One COMMAND's record: its term as the holder process numbered it (with the epoch node's
   * incarnation under amlease, {@link #NO_INCARNATION} under a latch), its actors and writes.
   */
  record Command(String life, Path dir, long localTerm, String incarnation, List<Span> actors,
      List<Write> writes) {}

  /** Where actor {@code role} surely acted (inner bounds on the nanoTime axis). */
  record Span(String role, long fromNanos, long toNanos) {}

  /** An accepted write: the data node's version after it. */
  record Write(int version, long nanos) {}

  /**
   * A term edge of a holder process: {@code granted} or {@code revoked}; amlease's edges name the
   * epoch node's incarnation (an operator's {@code deleteall} starts the epochs again in a new one).
   */
  record Edge(long nanos, boolean granted, long term, String incarnation) {}

  /** The incarnation of a latch's terms, which have none. */
  static final String NO_INCARNATION = "";

  private ActorLogs() {}

  /** Whether a writer of some COMMAND under {@code lane} has had a write accepted. */
  static boolean anyWrite(Path lane) {
    for (Path life : list(lane)) {
      for (Path cmd : list(life)) {
        Path log = cmd.resolve(ActorScript.WRITER + ".log");
        if (Files.exists(log) && ("\n" + read(log)).contains("\nW ")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Every COMMAND recorded under {@code lane}; commands that never wrote their term are skipped. */
  static List<Command> commands(Path lane, UptimeClock clock) {
    List<Command> out = new ArrayList<>();
    for (Path life : list(lane)) {
      for (Path cmd : list(life)) {
        Path term = cmd.resolve("term");
        if (!Files.isDirectory(cmd) || !Files.exists(term)) {
          continue;
        }
        String[] t = read(term).strip().split("\\s+");
        if (t[0].isEmpty()) {
          continue;
        }
        List<Span> actors = new ArrayList<>();
        List<Write> writes = new ArrayList<>();
        for (Path f : list(cmd)) {
          String name = f.getFileName().toString();
          if (name.endsWith(UP)) {
            shellSpan(name.substring(0, name.length() - UP.length()), read(f), clock)
                .ifPresent(actors::add);
          } else if (name.equals(ActorScript.WRITER + ".log")) {
            writer(read(f), actors, writes);
          }
        }
        out.add(new Command(life.getFileName().toString(), cmd, Long.parseLong(t[0]),
            incarnation(t, 1), actors, writes));
      }
    }
    return out;
  }

  /** The term edges of one holder process, in the order it logged them. */
  static List<Edge> edges(Path life) {
    Path f = life.resolve(EDGES);
    if (!Files.exists(f)) {
      return List.of();
    }
    List<Edge> out = new ArrayList<>();
    for (String line : completeLines(read(f))) {
      String[] w = line.strip().split("\\s+");
      if (w.length >= 3 && (w[1].equals("granted") || w[1].equals("revoked"))) {
        out.add(new Edge(Long.parseLong(w[0]), w[1].equals("granted"), Long.parseLong(w[2]),
            incarnation(w, 3)));
      }
    }
    return out;
  }

  /** Word {@code i} if it names an incarnation (a reason such as GRACE_EXPIRED does not). */
  private static String incarnation(String[] words, int i) {
    return words.length > i && io.amlease.lease.Epoch.INCARNATION.matcher(words[i]).matches()
        ? words[i] : NO_INCARNATION;
  }

  /**
   * A shell actor's span: from one resolution after its first stamp (it read the first in
   * {@code [u, u + 10 ms)}) to its last stamp. Empty with fewer than two distinct stamps.
   */
  static Optional<Span> shellSpan(String role, String stamps, UptimeClock clock) {
    List<String> lines = completeLines(stamps);
    if (lines.size() < 2) {
      return Optional.empty();
    }
    long from = clock.toNanos(UptimeClock.centis(lines.get(0))) + UptimeClock.RESOLUTION.toNanos();
    long to = clock.toNanos(UptimeClock.centis(lines.get(lines.size() - 1)));
    return to - from > 0 ? Optional.of(new Span(role, from, to)) : Optional.empty();
  }

  /**
   * The lines that were written whole: each record is one {@code write} of a line and its newline,
   * so only a process killed in the middle of one leaves a last line without a newline.
   */
  static List<String> completeLines(String text) {
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return List.of();
    }
    return Stream.of(text.substring(0, end).split("\n")).filter(l -> !l.isBlank()).toList();
  }

  private static void writer(String text, List<Span> actors, List<Write> writes) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (String line : completeLines(text)) {
      String[] w = line.strip().split(" ");
      try {
        if (w[0].equals("A") && w.length == 2) {
          long n = Long.parseLong(w[1]);
          first = Math.min(first, n);
          last = Math.max(last, n);
        } else if (w[0].equals("W") && w.length == 3) {
          writes.add(new Write(Integer.parseInt(w[1]), Long.parseLong(w[2])));
        }
      } catch (NumberFormatException e) {
        // Not a record of ours (a JVM message, say).
      }
    }
    if (last - first > 0) {
      actors.add(new Span(ActorScript.WRITER, first, last));
    }
  }

  private static List<Path> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
