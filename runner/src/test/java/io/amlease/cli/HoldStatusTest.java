package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.lease.Epoch;
import io.amlease.lease.zk.ZkServers;
import io.amlease.testkit.HeadlessChromium;
import io.amlease.testkit.PortReservation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hold --status-port}: the status page, status.json and Prometheus metrics of a real hold
 * process, checked over HTTP and in a real headless browser; and the JSON event log.
 */
class HoldStatusTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir
  Path dir;

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** CI installs Chromium (.ci/run); elsewhere the browser part is skipped when there is none. */
  private static HeadlessChromium chromium() {
    Optional<HeadlessChromium> found = HeadlessChromium.find();
    if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI must have chromium on the PATH (.ci/run installs it)");
    }
    Assumptions.assumeTrue(found.isPresent(), "no chromium on the PATH");
    return found.get();
  }

  @Test
  void statusPageJsonAndMetricsShowTheHolderAndEventsAreJsonLines() throws Exception {
    Path events = dir.resolve("events.jsonl");
    int port = PortReservation.one();
    String base = "http://127.0.0.1:" + port + "/";
    try (TestingServer zk = ZkServers.standalone();
         HoldProcess hold = HoldProcess.start(dir, "hold", Map.of("AMLEASE_EVENT_LOG",
             events.toString()), "hold", "--zk", zk.getConnectString(), "--lease", "/status/l",
             "--id", "web", "--session-timeout", "6s", "--stop-timeout", "1s",
             "--status-port", "127.0.0.1:" + port,
             "--", "sleep", "600")) {
      JsonNode status = await().atMost(Duration.ofSeconds(20))
          .failFast(() -> {
            if (!hold.isAlive()) {
              throw new AssertionError("hold exited\n" + hold.describe());
            }
            return false;
          })
          .ignoreExceptions().until(() -> JSON.readTree(get(base + "status.json").body()),
              s -> s.at("/lease/holder").asBoolean());
      assertThat(status.at("/lease/epoch").asLong()).isEqualTo(1);
      assertThat(status.at("/lease/phase").asText()).isEqualTo("HOLDING");
      assertThat(status.at("/lease/holder_id").asText()).isEqualTo("web");
      assertThat(status.at("/lease/session_timeout_ms").asLong()).isEqualTo(6000);
      assertThat(status.at("/lease/time_left_ms").asLong()).isPositive()
          .isLessThanOrEqualTo(status.at("/lease/grace_ms").asLong());
      assertThat(status.at("/counters/acquisitions").asLong()).isEqualTo(1);
      assertThat(status.at("/counters/revocations/GRACE_EXPIRED").asLong()).isZero();

      HttpResponse<String> metrics = get(base + "metrics");
      assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(
          t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
      assertThat(metrics.body()).contains("# TYPE amlease_lease_revocations_total counter",
          "amlease_lease_holder 1\n", "amlease_lease_epoch 1\n",
          "amlease_lease_acquisitions_total 1\n",
          "amlease_lease_revocations_total{reason=\"GRACE_EXPIRED\"} 0\n",
          "amlease_lease_fenced_write_failures_total 0\n", "amlease_lease_renew_latency_seconds_count");
      assertThat(get(base + "nothing-here").statusCode()).isEqualTo(404);

      // What a person sees, in a real browser.
      HeadlessChromium browser = chromium();
      String dom = browser.dumpDom(base);
      assertThat(dom).contains("<span class=\"badge lead\" id=\"badge\">LEADER · epoch 1</span>",
          "id=\"grace-left\"", "/status/l");
      Path png = Path.of("target", "hold-status-page.png");
      browser.screenshot(base, png, 900, 700);
      assertThat(Files.size(png)).isGreaterThan(5_000);

      hold.signal("TERM");
      assertThat(hold.awaitExit(Duration.ofSeconds(15))).as(hold::describe).isEqualTo(143);
    }
    List<JsonNode> lines = Files.readAllLines(events).stream().map(l -> {
      try {
        return JSON.readTree(l);
      } catch (Exception e) {
        throw new AssertionError("not a JSON line: " + l, e);
      }
    }).toList();
    assertThat(lines).extracting(n -> n.path("event").asText()).containsExactly("granted",
        "revoked");
    assertThat(lines.get(0).path("epoch").asText()).isEqualTo("1");
    assertThat(lines.get(0).path("holder").asText()).isEqualTo("web");
    assertThat(lines.get(0).path("lease").asText()).isEqualTo("/status/l");
    assertThat(lines.get(0).path("token").asText()).isEqualTo("1");
    assertThat(lines.get(0).path("incarnation").asText())
        .matches(Epoch.INCARNATION)
        .isEqualTo(lines.get(1).path("incarnation").asText());
    assertThat(lines.get(1).path("reason").asText()).isEqualTo("RELEASED");
    assertThat(lines.get(1).path("time").asText()).isNotEmpty();
  }

  @Test
  void badStatusPortIsAUsageErrorNamingTheFlag() throws Exception {
    try (HoldProcess hold = HoldProcess.start(dir, "bad", "hold", "--zk", "127.0.0.1:1",
        "--lease", "/x", "--status-port", "127.0.0.1:70000", "--", "true")) {
      assertThat(hold.awaitExit(Duration.ofSeconds(15))).isEqualTo(ExitCodes.USAGE);
      assertThat(hold.stderr()).contains("--status-port", "65535");
    }
  }
}
