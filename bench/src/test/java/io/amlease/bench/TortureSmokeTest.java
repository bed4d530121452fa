package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torture mode end to end on one short trial (about 30 s): a real 3-server ensemble, every
 * contender's holder processes (amlease's the real {@code hold}), the actor script's process trees,
 * through {@link BenchMain} so that the table and results.json are produced too.
 */
class TortureSmokeTest {

  @Test
  void oneTrialRunsEveryContenderAndAmleaseViolatesNothing(@TempDir Path out) throws Exception {
    Duration t = Duration.ofSeconds(4);
    // Seed 1: a leader kill, holder kills, a pause and an isolated follower, and one long amlease
    // term. Seed 5's amlease terms were all cut short by its faults, so whether their writers got
    // a single write through depended on timing (0 writes in about half the runs).
    TortureConfig cfg = new TortureConfig(out, 1, Duration.ofMinutes(10), 1, t, t.multipliedBy(2),
        Duration.ofSeconds(1), List.of(Contender.values()), 1, true);
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    int status = BenchMain.run(cfg, new PrintStream(stdout, true, StandardCharsets.UTF_8),
        new PrintStream(stderr, true, StandardCharsets.UTF_8));

    String progress = stderr.toString(StandardCharsets.UTF_8);
    // 1 = amlease violated something, of any kind (orphans included: COMMAND now runs only once
    // its reaper is armed).
    assertThat(status).as(progress).isEqualTo(BenchMain.OK);
    JsonNode r = new ObjectMapper().readTree(out.resolve("results.json").toFile());
    assertThat(r.path("trials").asInt()).as(progress).isEqualTo(1);
    for (Contender c : Contender.values()) {
      JsonNode totals = r.path("contenders").path(c.label());
      assertThat(totals.path("trials").asInt()).isEqualTo(1);
      assertThat(totals.path("terms").asInt()).as("%s terms", c.label()).isPositive();
    }
    JsonNode amlease = r.path("contenders").path("amlease");
    for (TortureChecker.Kind k : TortureChecker.Kind.values()) {
      assertThat(amlease.path("violations_by_kind").path(k.label()).asInt())
          .as("amlease %s: %s", k.label(), amlease).isZero();
    }
    assertThat(amlease.path("writes").asInt()).as("fenced writes from the COMMAND's writer; %s",
        amleaseRecords(out, r)).isPositive();
    assertThat(r.path("trial_details").get(0).path("contenders").path("amlease").path("processes")
        .asInt()).as("wrapper, grandchild and writer of each term").isGreaterThanOrEqualTo(3);
    assertThat(stdout.toString(StandardCharsets.UTF_8))
        .contains("torture run", "overlap: two terms acting", "amlease: 0 violations of any kind");
  }

  /**
   * What amlease's holders and writers recorded (kept with the run's records), for a failure to
   * tell why: each holder's edges, and each writer's first stamp, first write and counts.
   */
  private static String amleaseRecords(Path out, JsonNode results) throws java.io.IOException {
    StringBuilder b = new StringBuilder("trial events ")
        .append(results.path("trial_details").get(0).path("events")).append('\n');
    Path lanes = out.resolve("work").resolve("seed-1").resolve("amlease");
    if (!java.nio.file.Files.isDirectory(lanes)) {
      return b.append("(no records kept)").toString();
    }
    try (var holders = java.nio.file.Files.list(lanes)) {
      for (Path h : holders.sorted().toList()) {
        b.append(h.getFileName()).append(": ");
        Path edges = h.resolve("edges.log");
        if (java.nio.file.Files.exists(edges)) {
          b.append(java.nio.file.Files.readString(edges).replace('\n', ';'));
        }
        Path writer = h.resolve("cmd-1").resolve("writer.log");
        if (java.nio.file.Files.exists(writer)) {
          List<String> lines = java.nio.file.Files.readAllLines(writer);
          b.append(" writer: first ").append(lines.isEmpty() ? "-" : lines.get(0))
              .append(", first write ").append(lines.stream().filter(l -> l.startsWith("W"))
                  .findFirst().orElse("-"))
              .append(", ").append(lines.stream().filter(l -> l.startsWith("A")).count())
              .append(" alive, ").append(lines.stream().filter(l -> l.startsWith("F")).count())
              .append(" fenced");
        }
        b.append('\n');
      }
    }
    return b.toString();
  }
}
