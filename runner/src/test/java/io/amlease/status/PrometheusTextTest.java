package io.amlease.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {
  @Test
  void eachMetricHasHelpAndTypeThenItsSamples() {
    Map<String, Long> byReason = new LinkedHashMap<>();
    byReason.put("FENCED", 2L);
    byReason.put("odd\"label\\", 0L);
    String text = new PrometheusText()
        .gauge("g", "a gauge\nover two lines", 1.5)
        .counter("c_total", "by reason", "reason", byReason)
        .summary("s_seconds", "latency", 0.25, 4)
        .toString();
    assertThat(text).isEqualTo("""
        # HELP g a gauge\\nover two lines
        # TYPE g gauge
        g 1.500000
        # HELP c_total by reason
        # TYPE c_total counter
        c_total{reason="FENCED"} 2
        c_total{reason="odd\\"label\\\\"} 0
        # HELP s_seconds latency
        # TYPE s_seconds summary
        s_seconds_sum 0.250000
        s_seconds_count 4
        """);
  }
}
