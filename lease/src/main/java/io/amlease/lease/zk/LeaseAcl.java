package io.amlease.lease.zk;

import io.amlease.lease.DigestCredentials;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * Who owns a lease (digest credentials, or a SASL principal) and the ACL that implies: the owner may
 * do everything to the lease's nodes, everyone else may only read them (so {@code amlease leader}
 * works without credentials). Nodes above the lease path keep an open ACL, as they are shared by
 * other leases. Without an owner the lease is open by choice.
 */
final class LeaseAcl implements ACLProvider {
  private final LeasePaths paths;
  private final Optional<DigestCredentials> credentials;
  private final Optional<String> saslPrincipal;
  private final String saslLoginContext;
  /** The owner's id in ACLs: the digest credentials', else the SASL principal's. */
  private final Optional<Id> owner;

  LeaseAcl(LeasePaths paths, LeaseConfig config) {
    this(paths, config.aclCredentials(), config.saslPrincipal(), config.saslLoginContext());
  }

  private LeaseAcl(LeasePaths paths, Optional<DigestCredentials> credentials,
      Optional<String> saslPrincipal, String saslLoginContext) {
    this.paths = paths;
    this.credentials = credentials;
    this.saslPrincipal = saslPrincipal;
    this.saslLoginContext = saslLoginContext;
    this.owner = credentials.map(LeaseAcl::idOf)
        .or(() -> saslPrincipal.map(p -> new Id("sasl", p)));
  }

  /** The owner as error messages name it. */
  String who() {
    return credentials.map(c -> "digest user '" + c.user() + "'")
        .or(() -> saslPrincipal.map(p -> "SASL principal '" + p + "' (JAAS login context '"
            + saslLoginContext + "')"))
        .orElse("a client without credentials");
  }

  /** The server refused this client's SASL login (AuthFailed). */
  LeaseException.AccessDenied loginRefused(Throwable cause) {
    return new LeaseException.AccessDenied("ZooKeeper refused to authenticate " + who()
        + " (SASL): check the JAAS login context's principal and keytab or password, the KDC, "
        + "and the server's authProvider", cause);
  }

  /**
   * The client settings that make ZooKeeper log in with SASL from the owner's JAAS login context;
   * none (ZooKeeper's defaults) without a SASL owner.
   *
   * @throws LeaseException.AccessDenied when the JAAS configuration has no such login context
   */
  Optional<ZKClientConfig> clientConfig() throws LeaseException.AccessDenied {
    if (saslPrincipal.isEmpty()) {
      return Optional.empty();
    }
    AppConfigurationEntry[] entries;
    try {
      entries = javax.security.auth.login.Configuration.getConfiguration()
          .getAppConfigurationEntry(saslLoginContext);
    } catch (SecurityException e) {
      entries = null;
    }
    if (entries == null || entries.length == 0) {
      throw new LeaseException.AccessDenied("no JAAS login context '" + saslLoginContext + "' for "
          + LeaseConfig.SASL_PRINCIPAL + " '" + saslPrincipal.get() + "' (JAAS configuration "
          + "java.security.auth.login.config=" + System.getProperty(
              "java.security.auth.login.config") + "); add the section, or name another with "
          + LeaseConfig.SASL_LOGIN_CONTEXT, null);
    }
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "true");
    config.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, saslLoginContext);
    return Optional.of(config);
  }

  static Id idOf(DigestCredentials c) {
    try {
      return new Id("digest", DigestAuthenticationProvider.generateDigest(c.user() + ":" + c.password()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA1 not available", e);
    }
  }

  static AuthInfo authInfo(DigestCredentials c) {
    return new AuthInfo("digest", (c.user() + ":" + c.password()).getBytes(StandardCharsets.UTF_8));
  }

  Optional<DigestCredentials> credentials() {
    return credentials;
  }

  /**
   * With a SASL owner, that the server has authenticated this session as the owner. A failed SASL
   * login does not end a ZooKeeper session: it goes on unauthenticated, and would campaign with
   * writes that all fail. Servers before 3.7 cannot say (no whoAmI): there the ACL checks decide.
   *
   * @throws LeaseException.AccessDenied naming who the server says this client is
   */
  void checkAuthenticated(ZooKeeper zk) throws InterruptedException, LeaseException {
    if (saslPrincipal.isEmpty()) {
      return;
    }
    // whoAmI answers null for any error: an old server, but also a lost or refused session.
    List<ClientInfo> ids = zk.whoAmI();
    if (ids == null) {
      ZooKeeper.States state = zk.getState();
      if (state == ZooKeeper.States.AUTH_FAILED) {
        throw loginRefused(null);
      }
      if (!state.isConnected()) {
        throw new LeaseException.Unavailable("lost the ZooKeeper connection while asking who "
            + "this client is (" + state + ")", null);
      }
      return; // Connected, so a server before 3.7: the ACL checks decide.
    }
    if (ids.stream().noneMatch(c -> "sasl".equals(c.getAuthScheme())
        && saslPrincipal.get().equals(c.getUser()))) {
      throw new LeaseException.AccessDenied("ZooKeeper has not authenticated this client as "
          + who() + " but only as " + String.join(", ", ids.stream()
              .map(c -> c.getAuthScheme() + ":" + c.getUser()).toList()) + ": the SASL login "
          + "failed (see the ZooKeeper client's log: keytab, principal, KDC), or the server names "
          + "the principal differently (its kerberos.removeHostFromPrincipal and "
          + "kerberos.removeRealmFromPrincipal); " + LeaseConfig.SASL_PRINCIPAL + " must be the "
          + "name the server gives", null);
    }
  }

  /** The ACL for lease nodes. */
  List<ACL> leaseAcl() {
    // A mutable list: ZooKeeper's validateACL calls contains(null), which immutable lists reject.
    return new ArrayList<>(owner.map(id -> List.of(new ACL(ZooDefs.Perms.ALL, id),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
        .orElse(ZooDefs.Ids.OPEN_ACL_UNSAFE));
  }

  /**
   * With an owner, the entries of {@code acl} that let anyone but the owner change a node (write,
   * create, delete children, or change the ACL). Without one, none: the lease is open by choice.
   */
  List<ACL> othersWhoMayWrite(List<ACL> acl) {
    if (owner.isEmpty()) {
      return List.of();
    }
    Id ours = owner.get();
    int changes = ZooDefs.Perms.WRITE | ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE
        | ZooDefs.Perms.ADMIN;
    return acl.stream().filter(e -> !e.getId().equals(ours) && (e.getPerms() & changes) != 0)
        .toList();
  }

  /** The lease ACL in zkCli.sh's {@code setAcl} syntax. */
  String leaseAclText() {
    return format(leaseAcl()).replace(" ", "");
  }

  /** {@code scheme:id:perms} entries, comma-separated, as zkCli.sh prints and takes them. */
  static String format(List<ACL> acl) {
    return String.join(", ", acl.stream().map(e -> e.getId().getScheme() + ":" + e.getId().getId()
        + ":" + ZKUtil.getPermString(e.getPerms())).toList());
  }

  @Override
  public List<ACL> getDefaultAcl() {
    return ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }

  @Override
  public List<ACL> getAclForPath(String path) {
    return paths.covers(path) ? leaseAcl() : ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }

  /**
   * Whether {@code acl} grants {@code perms} to this client. A sasl entry grants only to the
   * configured SASL owner; schemes this client cannot judge (ip, x509) count as granting: the
   * server decides.
   */
  boolean grants(List<ACL> acl, int perms) {
    int granted = 0;
    for (ACL entry : acl) {
      Id id = entry.getId();
      boolean ours = switch (id.getScheme()) {
        case "world" -> "anyone".equals(id.getId());
        // Only the configured owner. Without a SASL owner configured this holder may still be
        // logged in (a JAAS Client section logs every ZooKeeper client in): it must not pass as
        // the owner and create nodes with an open ACL under a SASL-owned lease.
        case "digest", "sasl" -> owner.map(id::equals).orElse(false);
        default -> true;
      };
      if (ours) {
        granted |= entry.getPerms();
      }
    }
    return (granted & perms) == perms;
  }
}
