package io.amlease.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SummaryTableTest {
  @Test
  void padsColumnsAndListsProblemsBelowTheTable() {
    List<String> lines = SummaryTable.render(List.of(
        StepResult.ok("cluster", "up", "up", Duration.ofMillis(5_600)),
        StepResult.failed("partition > grace", "epoch 2", "epoch 2 +74.1s", Duration.ofMillis(74_300),
            "master outlived its session"),
        StepResult.skipped("clean finish", "SUCCEEDED", "(--keep-running)")));

    assertThat(lines).startsWith(
        "step              | expected  | observed         | time  | ok",
        "------------------+-----------+------------------+-------+--------",
        "cluster           | up        | up               | 5.6s  | ok",
        "partition > grace | epoch 2   | epoch 2 +74.1s   | 74.3s | FAILED",
        "clean finish      | SUCCEEDED | (--keep-running) | -     | skipped");
    assertThat(lines).endsWith("",
        "partition > grace did not behave as designed: master outlived its session");
  }
}
