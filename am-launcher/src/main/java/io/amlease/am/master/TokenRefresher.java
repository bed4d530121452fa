package io.amlease.am.master;

import io.amlease.lease.Durations;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenIdentifier;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fresh delegation tokens for a long-running application on a secure cluster (as Spark's
 * {@code spark.kerberos.keytab}): the AM logs in from the keytab shipped with it and obtains new
 * tokens for the staging filesystem (and the default one) at start and then at 3/4 of the shorter
 * of their renew interval and their remaining lifetime, and adds them to its own credentials,
 * which every worker it starts afterwards gets ({@link ContainerTokens}). The tokens of the
 * submission are renewed by the ResourceManager only up to their maximum lifetime
 * ({@code dfs.namenode.delegation.token.max-lifetime}, 7 days by default); after that, only tokens
 * obtained anew let a new worker localize its files or read HDFS. A failed attempt is logged and
 * retried a minute later; the AM keeps the tokens it has.
 */
final class TokenRefresher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TokenRefresher.class);
  static final double RATIO = 0.75;
  private static final Duration RETRY = Duration.ofMinutes(1);
  private static final Duration AT_LEAST = Duration.ofSeconds(1);

  private final String principal;
  private final String keytab;
  private final Configuration conf;
  private final List<org.apache.hadoop.fs.Path> filesystems;
  private final Clock clock;
  /** How long an obtained token lasts unless renewed, learned at the first refresh. */
  private Duration renewInterval;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "amlease-tokens");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param staging the application's staging directory (null: the default filesystem only)
   */
  TokenRefresher(String principal, String keytab, Configuration conf, String staging,
      Clock clock) {
    this.principal = principal;
    this.keytab = Path.of(keytab).toAbsolutePath().toString();
    this.conf = conf;
    this.filesystems = new ArrayList<>(List.of(new org.apache.hadoop.fs.Path("/")));
    if (staging != null) {
      filesystems.add(new org.apache.hadoop.fs.Path(staging));
    }
    this.clock = clock;
  }

  /**
   * Obtains fresh tokens now (the AM's own files need them before it starts anything), then on
   * schedule.
   *
   * @throws IOException when the first refresh fails: the keytab does not log in, or the
   *     filesystem gives no tokens
   */
  void start() throws IOException {
    Duration next = refresh();
    timer.schedule(this::refreshAndReschedule, next.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void refreshAndReschedule() {
    Duration next;
    try {
      next = refresh();
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not obtain fresh delegation tokens as {} (retrying in {}); the AM keeps the "
          + "ones it has", principal, Durations.format(RETRY), e);
      next = RETRY;
    }
    timer.schedule(this::refreshAndReschedule, next.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Obtains the tokens, adds them to the AM's credentials; returns when to refresh them. */
  Duration refresh() throws IOException {
    UserGroupInformation kerberos =
        UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, keytab);
    Credentials fresh = new Credentials();
    String renewer = conf.get(YarnConfiguration.RM_PRINCIPAL, principal);
    try {
      kerberos.doAs((java.security.PrivilegedExceptionAction<Void>) () -> {
        for (org.apache.hadoop.fs.Path p : filesystems) {
          p.getFileSystem(conf).addDelegationTokens(renewer, fresh);
        }
        return null;
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while obtaining delegation tokens", e);
    }
    UserGroupInformation.getCurrentUser().addCredentials(fresh);
    if (renewInterval == null) {
      renewInterval = renewInterval(kerberos);
    }
    Duration next = nextRefresh(fresh.getAllTokens(), renewInterval, clock.millis());
    LOG.info("obtained {} fresh delegation token(s) as {} ({}); next in {}",
        fresh.numberOfTokens(), principal, fresh.getAllTokens().stream()
            .map(t -> t.getKind() + " " + t.getService()).toList(), Durations.format(next));
    return next;
  }

  /**
   * How long a token lasts before it must be renewed: nobody renews the tokens obtained here (the
   * RM renews only the submission's), so they are good for one renew interval. The filesystems
   * do not say it; a token this principal may renew itself does, when renewed (as Spark learns
   * it). The shortest over the filesystems; a day (HDFS's default) if none tells.
   */
  private Duration renewInterval(UserGroupInformation kerberos) throws IOException {
    Credentials own = new Credentials();
    long shortest = Duration.ofDays(1).toMillis();
    try {
      shortest = kerberos.doAs((java.security.PrivilegedExceptionAction<Long>) () -> {
        long s = Duration.ofDays(1).toMillis();
        for (org.apache.hadoop.fs.Path p : filesystems) {
          p.getFileSystem(conf).addDelegationTokens(kerberos.getShortUserName(), own);
        }
        for (Token<?> t : own.getAllTokens()) {
          long now = clock.millis();
          long expires = t.renew(conf);
          s = Math.min(s, expires - now);
          t.cancel(conf);
        }
        return s;
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while learning the tokens' renew interval", e);
    }
    return Duration.ofMillis(shortest);
  }

  /**
   * 3/4 of the time until the first of {@code tokens} can no longer be used: its maximum date,
   * or, for one not renewed by anyone, its first renew interval; at least a second.
   */
  static Duration nextRefresh(java.util.Collection<Token<?>> tokens, Duration renewInterval,
      long nowMillis) {
    long shortest = renewInterval.toMillis();
    for (Token<?> t : tokens) {
      try {
        if (t.decodeIdentifier() instanceof AbstractDelegationTokenIdentifier id
            && id.getMaxDate() > 0) {
          shortest = Math.min(shortest, id.getMaxDate() - nowMillis);
        }
      } catch (IOException e) {
        LOG.debug("cannot decode {}", t.getKind(), e);
      }
    }
    Duration next = Duration.ofMillis((long) (shortest * RATIO));
    return next.compareTo(AT_LEAST) < 0 ? AT_LEAST : next;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
