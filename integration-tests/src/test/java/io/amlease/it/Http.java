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

  /** A status line, the headers (names in lower case) and the body. */
  record Reply(int status, java.util.Map<String, String> headers, String body) {}

  /**
   * GET {@code url} from another host than the RM's web proxy: from 127.0.0.2, which Linux routes
   * over loopback like 127.0.0.1 (every server of the tests listens on the proxy's own address, so
   * a plain client would pass for the proxy). HTTP/1.0, redirects not followed.
   */
  static Reply getFromAnotherHost(String url) throws Exception {
    URI u = URI.create(url);
    try (java.net.Socket s = new java.net.Socket()) {
      s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
      s.connect(new java.net.InetSocketAddress(u.getHost(), u.getPort()), 5000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("GET " + u.getRawPath() + " HTTP/1.0\r\nHost: " + u.getHost()
          + ":" + u.getPort() + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String all = new String(s.getInputStream().readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8);
      int end = all.indexOf("\r\n\r\n");
      String[] head = all.substring(0, end).split("\r\n");
      java.util.Map<String, String> headers = new java.util.HashMap<>();
      for (int i = 1; i < head.length; i++) {
        int colon = head[i].indexOf(':');
        headers.put(head[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
            head[i].substring(colon + 1).trim());
      }
      return new Reply(Integer.parseInt(head[0].split(" ")[1]), headers, all.substring(end + 4));
    }
  }

  /** {@code status.json} under a tracking URL (which ends with a slash). */
  static JsonNode status(String trackingUrl) throws Exception {
    return new ObjectMapper().readTree(get(trackingUrl + "status.json"));
  }
}
