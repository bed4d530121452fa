package io.amlease.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * How the demo looks at the application from outside, as an operator would: YARN's reports, the
 * leader info in ZooKeeper (read directly, never through the fault proxy), and the AM's
 * {@code status.json}.
 */
final class AppObserver implements AutoCloseable {
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final YarnClient yarn;
  private final CuratorFramework zk;
  private final LeaderReader leader;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();
  private volatile ApplicationId app;

  AppObserver(Configuration yarnConf, String zkConnect, String leasePath) throws Exception {
    yarn = YarnClient.createYarnClient();
    yarn.init(yarnConf);
    yarn.start();
    zk = ZkClients.connectReader(zkConnect, Duration.ofSeconds(10));
    leader = new LeaderReader(zk, leasePath);
  }

  void watch(ApplicationId id) {
    app = id;
  }

  ApplicationId app() {
    return app;
  }

  ApplicationReport report() throws Exception {
    return yarn.getApplicationReport(app);
  }

  /** The number of the attempt YARN currently runs (1, 2, …). */
  int currentAttempt() throws Exception {
    ApplicationAttemptId a = report().getCurrentApplicationAttemptId();
    return a == null ? 0 : a.getAttemptId();
  }

  ApplicationAttemptReport attempt(int n) throws Exception {
    return yarn.getApplicationAttemptReport(ApplicationAttemptId.newInstance(app, n));
  }

  Optional<LeaderInfo> leader() throws Exception {
    return leader.current();
  }

  /** The AM's {@code status.json} under its direct tracking URL; empty when it does not answer. */
  Optional<JsonNode> status(LeaderInfo info) {
    String base = info.urls().get("tracking");
    if (base == null) {
      return Optional.empty();
    }
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base).resolve("status.json"))
          .timeout(HTTP_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? Optional.of(JSON.readTree(r.body())) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Kills the application if it is still running (clean-up; a finished one is left alone). */
  void killIfRunning() throws Exception {
    if (app != null && !Terminal.is(report().getYarnApplicationState())) {
      yarn.killApplication(app);
    }
  }

  @Override
  public void close() {
    leader.close();
    zk.close();
    yarn.stop();
  }
}
