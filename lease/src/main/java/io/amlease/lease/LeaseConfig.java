package io.amlease.lease;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything a lease needs, immutable and validated once in {@link Builder#build()}. Each field has
 * a configuration key ({@code amlease.*}); every error names the key. The timing is checked again
 * after connecting, against the session timeout the server actually granted.
 */
public final class LeaseConfig {
  public static final String CONNECT = "amlease.zk.connect";
  public static final String SESSION_TIMEOUT = "amlease.zk.session-timeout";
  public static final String CONNECTION_TIMEOUT = "amlease.zk.connection-timeout";
  public static final String ACL_CREDENTIALS = "amlease.zk.acl-credentials";
  /**
   * The SASL principal (as the ZooKeeper server names it, e.g. {@code amlease} or
   * {@code amlease/host@REALM}) that owns the lease's nodes. Set, the lease's clients authenticate
   * with SASL (Kerberos, or DIGEST-MD5) from the JAAS login context {@link #SASL_LOGIN_CONTEXT}.
   */
  public static final String SASL_PRINCIPAL = "amlease.zk.sasl-principal";
  /** The JAAS login context the lease's clients log in with (ZooKeeper's and Hadoop's: Client). */
  public static final String SASL_LOGIN_CONTEXT = "amlease.zk.sasl-login-context";
  public static final String DEFAULT_SASL_LOGIN_CONTEXT = "Client";
  public static final String LEASE_PATH = "amlease.lease.path";
  public static final String HOLDER_ID = "amlease.lease.holder-id";
  public static final String GRACE = "amlease.lease.grace";
  public static final String RENEW_INTERVAL = "amlease.lease.renew-interval";
  public static final String STOP_TIMEOUT = "amlease.lease.stop-timeout";
  public static final String CLOCK_RATE_ERROR = "amlease.lease.clock-rate-error";
  public static final String SLACK = "amlease.lease.slack";
  public static final String GENERATION = "amlease.lease.generation";

  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(15);
  public static final double DEFAULT_CLOCK_RATE_ERROR = 0.05;
  public static final Duration MIN_SLACK = Duration.ofSeconds(1);

  private final String connectString;
  private final String leasePath;
  private final String holderId;
  private final Duration sessionTimeout;
  private final Duration connectionTimeout;
  private final Optional<Duration> grace;
  private final Optional<Duration> renewInterval;
  private final Duration stopTimeout;
  private final double clockRateError;
  private final Duration slack;
  private final Optional<DigestCredentials> aclCredentials;
  private final Optional<String> saslPrincipal;
  private final String saslLoginContext;
  private final LeaderDetails details;
  private final LeaseTiming requestedTiming;
  private final OptionalLong generation;

  private LeaseConfig(Builder b) {
    connectString = b.connectString;
    leasePath = b.leasePath;
    holderId = b.holderId;
    sessionTimeout = b.sessionTimeout;
    connectionTimeout = b.connectionTimeout;
    grace = Optional.ofNullable(b.grace);
    renewInterval = Optional.ofNullable(b.renewInterval);
    stopTimeout = b.stopTimeout;
    clockRateError = b.clockRateError;
    slack = b.slack;
    aclCredentials = Optional.ofNullable(b.aclCredentials).map(DigestCredentials::load);
    saslPrincipal = Optional.ofNullable(b.saslPrincipal);
    saslLoginContext = b.saslLoginContext;
    details = b.details;
    requestedTiming = timingFor(sessionTimeout, "requested");
    generation = b.generation == null ? OptionalLong.empty() : OptionalLong.of(b.generation);
  }

  /** The timing for a session timeout; after connecting pass the negotiated one. */
  public LeaseTiming timingFor(Duration t, String basis) {
    return LeaseTiming.derive(t, basis, grace, renewInterval, stopTimeout, clockRateError, slack);
  }

  public String connectString() { return connectString; }
  public String leasePath() { return leasePath; }
  public String holderId() { return holderId; }
  public Duration sessionTimeout() { return sessionTimeout; }
  public Duration connectionTimeout() { return connectionTimeout; }
  public Optional<Duration> grace() { return grace; }
  public Optional<Duration> renewInterval() { return renewInterval; }
  /** How long the holder may take to stop acting after revocation (counted against G2). */
  public Duration stopTimeout() { return stopTimeout; }
  public double clockRateError() { return clockRateError; }
  public Duration slack() { return slack; }
  public Optional<DigestCredentials> aclCredentials() { return aclCredentials; }
  /** The SASL principal that owns the lease's nodes, when the lease uses SASL. */
  public Optional<String> saslPrincipal() { return saslPrincipal; }
  public String saslLoginContext() { return saslLoginContext; }
  public LeaderDetails details() { return details; }
  /**
   * The contender's generation, if it has one (the AM: its YARN attempt number). Once a contender of
   * a higher generation has campaigned, lower ones never acquire (G6).
   */
  public OptionalLong generation() { return generation; }
  /** Timing from the requested session timeout (already validated). */
  public LeaseTiming requestedTiming() { return requestedTiming; }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the {@code amlease.*} keys from {@code conf} (absent keys take defaults).
   *
   * @throws LeaseConfigException naming the first bad key
   */
  public static Builder fromMap(Map<String, String> conf) {
    Builder b = builder();
    Optional.ofNullable(conf.get(CONNECT)).ifPresent(b::connectString);
    Optional.ofNullable(conf.get(LEASE_PATH)).ifPresent(b::leasePath);
    Optional.ofNullable(conf.get(HOLDER_ID)).ifPresent(b::holderId);
    duration(conf, SESSION_TIMEOUT).ifPresent(b::sessionTimeout);
    duration(conf, CONNECTION_TIMEOUT).ifPresent(b::connectionTimeout);
    duration(conf, GRACE).ifPresent(b::grace);
    duration(conf, RENEW_INTERVAL).ifPresent(b::renewInterval);
    duration(conf, SLACK).ifPresent(b::slack);
    Optional.ofNullable(conf.get(STOP_TIMEOUT)).map(v -> Durations.parseNonNegative(STOP_TIMEOUT, v))
        .ifPresent(b::stopTimeout);
    Optional.ofNullable(conf.get(CLOCK_RATE_ERROR)).ifPresent(v -> {
      try {
        b.clockRateError(Double.parseDouble(v.trim()));
      } catch (NumberFormatException e) {
        throw new LeaseConfigException(CLOCK_RATE_ERROR, CLOCK_RATE_ERROR + ": '" + v
            + "' is not a number (e.g. 0.05)");
      }
    });
    Optional.ofNullable(conf.get(ACL_CREDENTIALS)).map(Path::of).ifPresent(b::aclCredentials);
    Optional.ofNullable(conf.get(SASL_PRINCIPAL)).map(String::trim).filter(v -> !v.isEmpty())
        .ifPresent(b::saslPrincipal);
    Optional.ofNullable(conf.get(SASL_LOGIN_CONTEXT)).map(String::trim)
        .ifPresent(b::saslLoginContext);
    Optional.ofNullable(conf.get(GENERATION)).ifPresent(v -> {
      try {
        b.generation(Long.parseLong(v.trim()));
      } catch (NumberFormatException e) {
        throw new LeaseConfigException(GENERATION, GENERATION + ": '" + v + "' is not a whole number");
      }
    });
    return b;
  }

  private static Optional<Duration> duration(Map<String, String> conf, String key) {
    return Optional.ofNullable(conf.get(key)).map(v -> Durations.parse(key, v));
  }

  /** This configuration as {@code amlease.*} key/value pairs (explicit values only). */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(CONNECT, connectString);
    m.put(LEASE_PATH, leasePath);
    m.put(HOLDER_ID, holderId);
    m.put(SESSION_TIMEOUT, sessionTimeout.toMillis() + "ms");
    m.put(CONNECTION_TIMEOUT, connectionTimeout.toMillis() + "ms");
    grace.ifPresent(g -> m.put(GRACE, g.toMillis() + "ms"));
    renewInterval.ifPresent(r -> m.put(RENEW_INTERVAL, r.toMillis() + "ms"));
    m.put(STOP_TIMEOUT, stopTimeout.toMillis() + "ms");
    m.put(CLOCK_RATE_ERROR, Double.toString(clockRateError));
    m.put(SLACK, slack.toMillis() + "ms");
    aclCredentials.ifPresent(c -> m.put(ACL_CREDENTIALS, c.file().toString()));
    saslPrincipal.ifPresent(p -> {
      m.put(SASL_PRINCIPAL, p);
      m.put(SASL_LOGIN_CONTEXT, saslLoginContext);
    });
    return m;
  }

  /** Mutable builder; {@link #build()} validates every rule. */
  public static final class Builder {
    private String connectString;
    private String leasePath;
    private String holderId = defaultHolderId();
    private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration grace;
    private Duration renewInterval;
    private Duration stopTimeout = Duration.ZERO;
    private double clockRateError = DEFAULT_CLOCK_RATE_ERROR;
    private Duration slack = MIN_SLACK;
    private Path aclCredentials;
    private String saslPrincipal;
    private String saslLoginContext = DEFAULT_SASL_LOGIN_CONTEXT;
    private LeaderDetails details = LeaderDetails.NONE;
    private Long generation;

    public Builder connectString(String v) { connectString = v; return this; }
    public Builder leasePath(String v) { leasePath = v; return this; }
    public Builder holderId(String v) { holderId = v; return this; }
    public Builder sessionTimeout(Duration v) { sessionTimeout = v; return this; }
    public Builder connectionTimeout(Duration v) { connectionTimeout = v; return this; }
    public Builder grace(Duration v) { grace = v; return this; }
    public Builder renewInterval(Duration v) { renewInterval = v; return this; }
    public Builder stopTimeout(Duration v) { stopTimeout = v; return this; }
    public Builder clockRateError(double v) { clockRateError = v; return this; }
    public Builder slack(Duration v) { slack = v; return this; }
    public Builder aclCredentials(Path v) { aclCredentials = v; return this; }
    public Builder saslPrincipal(String v) { saslPrincipal = v; return this; }
    public Builder saslLoginContext(String v) { saslLoginContext = v; return this; }
    public Builder details(LeaderDetails v) { details = Objects.requireNonNull(v); return this; }
    public Builder generation(long v) { generation = v; return this; }

    /** @throws LeaseConfigException naming the key of the first rule broken */
    public LeaseConfig build() {
      if (connectString == null || connectString.isBlank()) {
        throw new LeaseConfigException(CONNECT, CONNECT
            + " is required: the ZooKeeper connect string, e.g. zk1:2181,zk2:2181");
      }
      checkLeasePath();
      if (holderId == null || holderId.isBlank() || holderId.contains("\n")) {
        throw new LeaseConfigException(HOLDER_ID, HOLDER_ID + " must be a non-empty single line");
      }
      positive(SESSION_TIMEOUT, sessionTimeout);
      positive(CONNECTION_TIMEOUT, connectionTimeout);
      if (grace != null) {
        positive(GRACE, grace);
      }
      if (renewInterval != null) {
        positive(RENEW_INTERVAL, renewInterval);
      }
      if (stopTimeout == null || stopTimeout.isNegative()) {
        throw new LeaseConfigException(STOP_TIMEOUT, STOP_TIMEOUT + " must be zero or positive");
      }
      if (!(clockRateError >= 0 && clockRateError < 0.5)) {
        throw new LeaseConfigException(CLOCK_RATE_ERROR, CLOCK_RATE_ERROR + " (" + clockRateError
            + ") must be at least 0 and below 0.5");
      }
      if (generation != null && generation < 1) {
        throw new LeaseConfigException(GENERATION, GENERATION + " (" + generation
            + ") must be at least 1");
      }
      if (saslPrincipal != null) {
        if (saslPrincipal.isBlank() || !saslPrincipal.matches("[^\\s,:]+")) {
          throw new LeaseConfigException(SASL_PRINCIPAL, SASL_PRINCIPAL + " ('" + saslPrincipal
              + "') must be a principal as ZooKeeper names it, e.g. amlease or "
              + "amlease/host@REALM: no spaces, ',' or ':'");
        }
        if (aclCredentials != null) {
          throw new LeaseConfigException(SASL_PRINCIPAL, "set either " + ACL_CREDENTIALS
              + " (digest) or " + SASL_PRINCIPAL + " (SASL), not both: a lease's nodes have one "
              + "owner");
        }
      }
      if (saslLoginContext == null || saslLoginContext.isBlank()) {
        throw new LeaseConfigException(SASL_LOGIN_CONTEXT, SASL_LOGIN_CONTEXT
            + " must name a JAAS login context, e.g. " + DEFAULT_SASL_LOGIN_CONTEXT);
      }
      if (slack == null || slack.compareTo(MIN_SLACK) < 0) {
        throw new LeaseConfigException(SLACK, SLACK + " (" + (slack == null ? "null"
            : Durations.format(slack)) + ") must be at least " + Durations.format(MIN_SLACK)
            + ": it covers watchdog lateness and signal delivery (G2)");
      }
      return new LeaseConfig(this);
    }

    private void checkLeasePath() {
      if (leasePath == null || leasePath.isBlank()) {
        throw new LeaseConfigException(LEASE_PATH, LEASE_PATH + " is required, e.g. /amlease/myapp");
      }
      if (!leasePath.startsWith("/") || leasePath.equals("/") || leasePath.endsWith("/")
          || leasePath.contains("//") || leasePath.contains("/./") || leasePath.contains("/../")
          || leasePath.endsWith("/.") || leasePath.endsWith("/..")) {
        throw new LeaseConfigException(LEASE_PATH, LEASE_PATH + " ('" + leasePath
            + "') must be an absolute ZooKeeper path below the root, e.g. /amlease/myapp");
      }
    }

    private static void positive(String key, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new LeaseConfigException(key, key + " must be a positive duration");
      }
    }

    private static String defaultHolderId() {
      String host;
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.net.UnknownHostException e) {
        host = "localhost";
      }
      return host + ":" + ProcessHandle.current().pid();
    }
  }
}
