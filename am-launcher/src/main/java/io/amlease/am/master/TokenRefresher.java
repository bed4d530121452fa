package io.amlease.am.master;

import io.amlease.lease.Durations;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delegation tokens for a long-running application on a secure cluster (as Spark's
 * {@code spark.kerberos.keytab}). The AM logs in from the keytab shipped with it and obtains its own
 * tokens for the staging and the default filesystem, with its principal as renewer, and adds them
 * to its credentials, which every worker it starts afterwards gets ({@link ContainerTokens}). It
 * renews them every 3/4 of their renew interval, so the copies its workers hold stay valid too,
 * and obtains new ones once their maximum lifetime ({@code
 * dfs.namenode.delegation.token.max-lifetime}, 7 days by default) is less than two renew intervals
 * away; the ones it replaced are renewed on until that lifetime ends, for the workers that hold
 * them. (The submission's tokens are renewed by the ResourceManager, but only up to that lifetime.)
 * A round that fails is retried after a quarter of the renew interval (at most a minute), with new
 * tokens if renewing failed; the AM keeps the tokens it has. The first round must succeed: the AM
 * cannot start workers without tokens.
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
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "amlease-tokens");
    t.setDaemon(true);
    return t;
  });
  /** The tokens obtained last, and how long one lasts unless renewed (learned when obtained). */
  private Credentials current;
  private Duration renewInterval;
  /** Tokens replaced while workers may still hold them: renewed until their maximum date. */
  private final List<Token<?>> retired = new ArrayList<>();
  /** Obtain new tokens at the next round (a renewal failed). */
  private boolean renewFailed;

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
   * Obtains tokens now (the AM's own files may be past the submission tokens' lifetime), then
   * renews or replaces them on schedule.
   *
   * @throws IOException when the first round fails: the keytab does not log in, or the filesystem
   *     gives no tokens
   */
  void start() throws IOException {
    Duration next = round();
    timer.schedule(this::roundAndReschedule, next.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void roundAndReschedule() {
    Duration next;
    try {
      next = round();
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        renewFailed = true;
        next = retryDelay(renewInterval);
      }
      LOG.warn("could not renew or obtain delegation tokens as {} (new ones in {}); the AM keeps "
          + "the ones it has", principal, Durations.format(next), e);
    }
    timer.schedule(this::roundAndReschedule, next.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A quarter of the renew interval, at most a minute, at least a second. */
  static Duration retryDelay(Duration renewInterval) {
    Duration quarter = renewInterval == null ? RETRY : renewInterval.dividedBy(4);
    Duration d = quarter.compareTo(RETRY) < 0 ? quarter : RETRY;
    return d.compareTo(AT_LEAST) < 0 ? AT_LEAST : d;
  }

  /** Renews the tokens, or obtains new ones; returns when to come back. */
  synchronized Duration round() throws IOException {
    UserGroupInformation kerberos =
        UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, keytab);
    try {
      long now = clock.millis();
      retired.removeIf(t -> maxDate(List.of(t), Long.MAX_VALUE) <= now);
      for (Token<?> t : retired) {
        try { // Best effort: a worker may hold it; its successor is in place.
          as(kerberos, () -> renew(List.of(t)));
        } catch (IOException | RuntimeException e) {
          LOG.debug("could not renew a replaced token {}", t.getService(), e);
        }
      }
      if (current == null || renewFailed || maxDate(current.getAllTokens(), Long.MAX_VALUE) - now
          < renewInterval.multipliedBy(2).toMillis()) {
        obtain(kerberos, now);
      } else {
        as(kerberos, () -> renew(current.getAllTokens()));
        LOG.debug("renewed {} delegation token(s)", current.numberOfTokens());
      }
      return nextRound(current.getAllTokens(), renewInterval, clock.millis());
    } finally {
      FileSystem.closeAllForUGI(kerberos);
    }
  }

  private void obtain(UserGroupInformation kerberos, long now) throws IOException {
    Credentials fresh = new Credentials();
    long expires = as(kerberos, () -> {
      for (org.apache.hadoop.fs.Path p : filesystems) {
        // The full principal: the NameNode maps it to the short name it checks renewals against.
        p.getFileSystem(conf).addDelegationTokens(kerberos.getUserName(), fresh);
      }
      return renew(fresh.getAllTokens());
    });
    if (fresh.numberOfTokens() == 0) {
      throw new IOException("the filesystems " + filesystems + " gave no delegation tokens to "
          + principal);
    }
    renewInterval = expires == Long.MAX_VALUE ? Duration.ofDays(1)
        : Duration.ofMillis(Math.max(AT_LEAST.toMillis(), expires - now));
    if (current != null) {
      retired.addAll(current.getAllTokens());
    }
    current = fresh;
    renewFailed = false;
    UserGroupInformation.getCurrentUser().addCredentials(fresh);
    LOG.info("obtained {} delegation token(s) as {} ({}), renew interval {}",
        fresh.numberOfTokens(), principal, fresh.getAllTokens().stream()
            .map(t -> t.getKind() + " " + t.getService()).toList(),
        Durations.format(renewInterval));
  }

  /** Renews those of {@code tokens} that can be; returns the first new expiry (MAX if none). */
  private long renew(Collection<Token<?>> tokens) throws IOException, InterruptedException {
    long first = Long.MAX_VALUE;
    for (Token<?> t : tokens) {
      if (t.isManaged()) {
        first = Math.min(first, t.renew(conf));
      }
    }
    return first;
  }

  private static long as(UserGroupInformation ugi, PrivilegedExceptionAction<Long> action)
      throws IOException {
    try {
      return ugi.doAs(action);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while renewing or obtaining delegation tokens", e);
    }
  }

  /**
   * 3/4 of the renew interval, or of the time left until the first of {@code tokens} reaches its
   * maximum date if that is sooner (when new ones must be in place); at least a second.
   */
  static Duration nextRound(Collection<Token<?>> tokens, Duration renewInterval, long nowMillis) {
    long shortest = Math.min(renewInterval.toMillis(),
        maxDate(tokens, Long.MAX_VALUE) - nowMillis);
    Duration next = Duration.ofMillis((long) (shortest * RATIO));
    return next.compareTo(AT_LEAST) < 0 ? AT_LEAST : next;
  }

  /** The first maximum date of {@code tokens}, or {@code none} if no token tells. */
  private static long maxDate(Collection<Token<?>> tokens, long none) {
    long first = none;
    for (Token<?> t : tokens) {
      try {
        if (t.decodeIdentifier() instanceof AbstractDelegationTokenIdentifier id
            && id.getMaxDate() > 0) {
          first = Math.min(first, id.getMaxDate());
        }
      } catch (IOException e) {
        LOG.debug("cannot decode {}", t.getKind(), e);
      }
    }
    return first;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
