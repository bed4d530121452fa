package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.testkit.HeadlessChromium;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** The AM's status page over HTTP (directly or through the RM's web proxy) and in a browser. */
final class Http {
  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  /** The body of {@code url}, which must answer 200. */
  static String get(String url) throws Exception {
    HttpResponse<String> r;
    try {
      r = CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.IOException("GET " + url + ": " + e, e);
    }
    assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
    return r.body();
  }

  /**
   * CI installs Chromium (.ci/run); elsewhere the browser checks are left out when there is none.
   * Only those checks: the rest of a test that also looks at a page in a browser still runs.
   */
  static Optional<HeadlessChromium> chromium() {
    Optional<HeadlessChromium> found = HeadlessChromium.find();
    if (found.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI must have chromium on the PATH (.ci/run installs it)");
    }
    if (found.isEmpty()) {
      System.out.println("no chromium on the PATH: browser checks left out");
    }
    return found;
  }

  /** {@code status.json} under a tracking URL (which ends with a slash). */
  static JsonNode status(String trackingUrl) throws Exception {
    return new ObjectMapper().readTree(get(trackingUrl + "status.json"));
  }
}
