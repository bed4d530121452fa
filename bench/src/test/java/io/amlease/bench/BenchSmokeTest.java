package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark end to end on a tiny subset (about 15 s): amlease, one partition and one clean
 * handover, T = 3 s, through {@link BenchMain} so that the table, JSON and picture are produced too.
 */
class BenchSmokeTest {

  @Test
  void theLeaseStopsBeforeTheContenderStartsAndTheOutputsAreWritten(@TempDir Path out) throws Exception {
    BenchConfig cfg = new BenchConfig(true, out, 7, Duration.ofSeconds(3), 1, 1, 1, 0, 0,
        Duration.ZERO, 1, Duration.ofSeconds(1),
        List.of(Contender.AMLEASE, Contender.FLINK_AMLEASE, Contender.FLINK_ZK_TOLERANT),
        EnumSet.of(BenchConfig.Scenario.PARTITIONS, BenchConfig.Scenario.HANDOVER));
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    int status = BenchMain.run(cfg, new PrintStream(stdout, true, StandardCharsets.UTF_8),
        new PrintStream(stderr, true, StandardCharsets.UTF_8));

    assertThat(status).as(stderr.toString(StandardCharsets.UTF_8)).isEqualTo(BenchMain.OK);
    JsonNode amlease = new ObjectMapper().readTree(out.resolve("results.json").toFile())
        .path("contenders").path("amlease");
    JsonNode partition = amlease.path("partitions");
    assertThat(partition.path("trials").asInt()).isEqualTo(1);
    assertThat(partition.path("overlap_ms").path("max").asDouble()).isNegative();
    assertThat(partition.path("failover_ms").path("median").asDouble()).isPositive();
    assertThat(amlease.path("handover").path("overlap_ms").path("max").asDouble()).isNegative();
    assertThat(out.resolve("timeline.svg")).content().startsWith("<svg").contains("amlease");
    assertThat(stdout.toString(StandardCharsets.UTF_8))
        .contains("partition: overlap", "[ok] amlease: every overlap < 0");

    // The Flink comparison's participants, side by side on the same partition: the plugin's old
    // leader stops before the new one starts and none of its writes lands after the new leader's;
    // Flink's own driver with tolerate-suspended-connections leads twice at once.
    JsonNode contenders = new ObjectMapper().readTree(out.resolve("results.json").toFile())
        .path("contenders");
    JsonNode plugin = contenders.path("flink-amlease").path("partitions");
    assertThat(plugin.path("overlap_ms").path("max").asDouble()).isNegative();
    assertThat(plugin.path("trial_details").get(0).has("superseded_writes"))
        .as("the new holder wrote, so superseded writes were measured").isTrue();
    assertThat(plugin.path("trial_details").get(0).path("superseded_writes").asLong()).isZero();
    assertThat(contenders.path("flink-amlease").path("handover").path("overlap_ms").path("max")
        .asDouble()).isNegative();
    assertThat(contenders.path("flink-zk-tolerant").path("partitions").path("overlap_ms")
        .path("min").asDouble()).isPositive();
  }
}
