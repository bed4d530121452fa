package io.amlease.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One test per validation rule; each pins the key and the numbers in the message. */
class LeaseConfigTest {

  private static Map<String, String> base() {
    Map<String, String> m = new HashMap<>();
    m.put(LeaseConfig.CONNECT, "127.0.0.1:2181");
    m.put(LeaseConfig.LEASE_PATH, "/amlease/app");
    return m;
  }

  private static LeaseConfig build(Map<String, String> m) {
    return LeaseConfig.fromMap(m).build();
  }

  private static void rejected(Map<String, String> m, String key, String... fragments) {
    assertThatThrownBy(() -> build(m)).isInstanceOfSatisfying(LeaseConfigException.class, e -> {
      assertThat(e.key()).isEqualTo(key);
      assertThat(e.getMessage()).contains(key).contains(fragments);
    });
  }

  @Test
  void defaultsFollowTheDesign() {
    LeaseConfig c = build(base());
    assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.requestedTiming().grace()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.requestedTiming().renewInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.holderId()).contains(":" + ProcessHandle.current().pid());
  }

  @Test
  void defaultGraceIsCappedByTheG2BoundForShortSessions() {
    // At T = 10s, 2T/3 = 6.67s is within the bound T·0.95 − 1s − T/6 = 6.83s, so 2T/3 stands ...
    assertThat(LeaseTiming.derive(Duration.ofSeconds(10), "requested", Optional.empty(),
        Optional.empty(), Duration.ZERO, 0.05, Duration.ofSeconds(1)).grace())
        .isEqualTo(Duration.ofMillis(6666).plusNanos(666_666));
    // ... but at T = 4s, 2T/3 = 2.67s exceeds the bound 2.8s − 0.67s = 2.13s, so the bound wins:
    // the renew interval counts, as the ZooKeeper leader may hear of a renewal that much late.
    assertThat(LeaseTiming.derive(Duration.ofSeconds(4), "requested", Optional.empty(),
        Optional.empty(), Duration.ZERO, 0.05, Duration.ofSeconds(1)).grace())
        .isEqualTo(Duration.ofMillis(2133).plusNanos(333_334));
  }

  @Test
  void aLongStopTimeoutLeavesTheDefaultsHalfTheBudgetAsTolerance() {
    // T = 10s, the runners' 5s stop-timeout: the budget is 9.5s − 1s − 5s = 3.5s. T/6 = 1.67s for
    // renewals would leave grace 1.83s, so one renewal answered 170ms late cost the lease (G1 holds
    // only for outages below grace − renewInterval). A quarter of the budget: renew 0.875s, grace
    // 2.625s, tolerance 1.75s.
    LeaseTiming t = LeaseTiming.derive(Duration.ofSeconds(10), "negotiated", Optional.empty(),
        Optional.empty(), Duration.ofSeconds(5), 0.05, Duration.ofSeconds(1));
    assertThat(t.renewInterval()).isEqualTo(Duration.ofMillis(875));
    assertThat(t.grace()).isEqualTo(Duration.ofMillis(2625));
    assertThat(t.grace().minus(t.renewInterval())).isEqualTo(Duration.ofMillis(1750));
    // G2 still holds with nothing to spare: grace + stop-timeout + renew interval = the bound.
    assertThat(t.grace().plus(t.stopTimeout()).plus(t.renewInterval()))
        .isEqualTo(Duration.ofMillis(8500));
  }

  @Test
  void aBudgetTooSmallForAUsefulGraceIsRefusedNamingTheStopTimeout() {
    // T = 7s, stop-timeout 5s: a budget of 6.65s − 1s − 5s = 0.65s. A quarter of it would renew
    // every 0.16s with grace 0.49s, below ZooKeeper's own reconnect delay; renewals stay at T/12
    // at least, which leaves no grace above them.
    Map<String, String> m = base();
    m.put(LeaseConfig.SESSION_TIMEOUT, "7s");
    m.put(LeaseConfig.STOP_TIMEOUT, "5s");
    rejected(m, LeaseConfig.STOP_TIMEOUT, "must be less than", "shorten "
        + LeaseConfig.STOP_TIMEOUT + " (5s)");
  }

  @Test
  void durationsMustBePositive() {
    Map<String, String> m = base();
    m.put(LeaseConfig.GRACE, "0s");
    rejected(m, LeaseConfig.GRACE, "positive");
    m = base();
    m.put(LeaseConfig.CONNECTION_TIMEOUT, "0ms");
    rejected(m, LeaseConfig.CONNECTION_TIMEOUT, "positive");
  }

  @Test
  void graceAboveTheG2BoundIsRefusedWithTheNumbers() {
    Map<String, String> m = base();
    m.put(LeaseConfig.GRACE, "28s");
    rejected(m, LeaseConfig.GRACE, "28s", "30s", "0.05", "27.5s", "G2");
    m.put(LeaseConfig.GRACE, "22.6s"); // + the renew interval 5s
    rejected(m, LeaseConfig.GRACE, "22.6s", "5s", "27.5s", "G2");
    m.put(LeaseConfig.GRACE, "22.5s");
    assertThat(build(m).requestedTiming().grace()).isEqualTo(Duration.ofMillis(22_500));
  }

  @Test
  void graceAndStopTimeoutTogetherMustFitTheG2Bound() {
    Map<String, String> m = base();
    m.put(LeaseConfig.STOP_TIMEOUT, "10s");
    m.put(LeaseConfig.GRACE, "20s");
    rejected(m, LeaseConfig.GRACE, "20s", "10s", "27.5s");
    // The defaults shrink to make room: the renew interval to a quarter of 27.5s − 10s, 4.375s, and
    // the grace to min(20s, 17.5s − 4.375s).
    m.remove(LeaseConfig.GRACE);
    assertThat(build(m).requestedTiming().renewInterval()).isEqualTo(Duration.ofMillis(4375));
    assertThat(build(m).requestedTiming().grace()).isEqualTo(Duration.ofMillis(13_125));
    m.put(LeaseConfig.STOP_TIMEOUT, "28s");
    rejected(m, LeaseConfig.STOP_TIMEOUT, "28s", "no time for any grace");
    m.put(LeaseConfig.STOP_TIMEOUT, "-1s");
    rejected(m, LeaseConfig.STOP_TIMEOUT, "not a duration");
  }

  @Test
  void aRenewIntervalThatShrinksTheDefaultGraceBelowItselfSaysWhy() {
    Map<String, String> m = base();
    m.put(LeaseConfig.SESSION_TIMEOUT, "10s");
    m.put(LeaseConfig.STOP_TIMEOUT, "1s");
    m.put(LeaseConfig.RENEW_INTERVAL, "5s"); // grace = min(6.67s, 8.5s − 1s − 5s) = 2.5s
    rejected(m, LeaseConfig.RENEW_INTERVAL, "5s", "2.5s", "the default", "8.5s",
        "shorten " + LeaseConfig.RENEW_INTERVAL);
  }

  @Test
  void renewIntervalMustBeBelowGrace() {
    Map<String, String> m = base();
    m.put(LeaseConfig.GRACE, "10s");
    m.put(LeaseConfig.RENEW_INTERVAL, "10s");
    rejected(m, LeaseConfig.RENEW_INTERVAL, "10s", LeaseConfig.GRACE);
  }

  @Test
  void sessionTooShortForAnyGrace() {
    Map<String, String> m = base();
    m.put(LeaseConfig.SESSION_TIMEOUT, "1s");
    rejected(m, LeaseConfig.SESSION_TIMEOUT, "too short");
  }

  @Test
  void clockRateErrorAndSlackBounds() {
    Map<String, String> m = base();
    m.put(LeaseConfig.CLOCK_RATE_ERROR, "0.7");
    rejected(m, LeaseConfig.CLOCK_RATE_ERROR, "0.7", "0.5");
    m = base();
    m.put(LeaseConfig.CLOCK_RATE_ERROR, "fast");
    rejected(m, LeaseConfig.CLOCK_RATE_ERROR, "'fast'");
    m = base();
    m.put(LeaseConfig.SLACK, "500ms");
    rejected(m, LeaseConfig.SLACK, "500ms", "at least 1s");
  }

  @Test
  void holderIdMustBeOneLine() {
    Map<String, String> m = base();
    m.put(LeaseConfig.HOLDER_ID, "a\nb");
    rejected(m, LeaseConfig.HOLDER_ID, "single line");
  }

  @Test
  void saslPrincipalIsOnePrincipalAndExcludesDigestCredentials(@TempDir Path dir) throws Exception {
    Map<String, String> m = base();
    m.put(LeaseConfig.SASL_PRINCIPAL, "amlease/host@EXAMPLE.COM");
    LeaseConfig c = build(m);
    assertThat(c.saslPrincipal()).contains("amlease/host@EXAMPLE.COM");
    assertThat(c.saslLoginContext()).isEqualTo("Client");
    assertThat(LeaseConfig.fromMap(c.toMap()).build().saslPrincipal()).isEqualTo(c.saslPrincipal());

    m.put(LeaseConfig.SASL_PRINCIPAL, "a b");
    rejected(m, LeaseConfig.SASL_PRINCIPAL, "'a b'", "no spaces");
    m.put(LeaseConfig.SASL_PRINCIPAL, "amlease");
    m.put(LeaseConfig.ACL_CREDENTIALS, Files.writeString(dir.resolve("c"), "u:p").toString());
    rejected(m, LeaseConfig.SASL_PRINCIPAL, LeaseConfig.ACL_CREDENTIALS, "not both");
    m.remove(LeaseConfig.ACL_CREDENTIALS);
    m.put(LeaseConfig.SASL_LOGIN_CONTEXT, " ");
    rejected(m, LeaseConfig.SASL_LOGIN_CONTEXT, "JAAS login context");
  }

  @Test
  void credentialsFileMustExistAndHoldUserColonPassword(@TempDir Path dir) throws Exception {
    Map<String, String> m = base();
    m.put(LeaseConfig.ACL_CREDENTIALS, dir.resolve("missing").toString());
    rejected(m, LeaseConfig.ACL_CREDENTIALS, "cannot read");
    Path bad = Files.writeString(dir.resolve("bad"), "no-colon\n");
    m.put(LeaseConfig.ACL_CREDENTIALS, bad.toString());
    rejected(m, LeaseConfig.ACL_CREDENTIALS, "user:password");
    Path good = Files.writeString(dir.resolve("good"), "alice:s3cret\n");
    m.put(LeaseConfig.ACL_CREDENTIALS, good.toString());
    DigestCredentials c = build(m).aclCredentials().orElseThrow();
    assertThat(c.user()).isEqualTo("alice");
    assertThat(c.password()).isEqualTo("s3cret");
    assertThat(c.toString()).doesNotContain("s3cret");
  }
}
