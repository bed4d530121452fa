package io.amlease.lease.zk;

import io.amlease.lease.DigestCredentials;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * Digest credentials for a lease and the ACL they imply: the lease's principal may do everything to
 * the lease's nodes, everyone else may only read them (so {@code amlease leader} works without
 * credentials). Nodes above the lease path keep an open ACL, as they are shared by other leases.
 */
final class LeaseAcl implements ACLProvider {
  private final LeasePaths paths;
  private final Optional<DigestCredentials> credentials;

  LeaseAcl(LeasePaths paths, Optional<DigestCredentials> credentials) {
    this.paths = paths;
    this.credentials = credentials;
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

  /** The ACL for lease nodes. */
  List<ACL> leaseAcl() {
    // A mutable list: ZooKeeper's validateACL calls contains(null), which immutable lists reject.
    return new ArrayList<>(credentials.map(c -> List.of(new ACL(ZooDefs.Perms.ALL, idOf(c)),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
        .orElse(ZooDefs.Ids.OPEN_ACL_UNSAFE));
  }

  /**
   * With credentials, the entries of {@code acl} that let anyone but this principal change a node
   * (write, create, delete children, or change the ACL). Without credentials, none: the lease is
   * open by choice.
   */
  List<ACL> othersWhoMayWrite(List<ACL> acl) {
    if (credentials.isEmpty()) {
      return List.of();
    }
    Id ours = idOf(credentials.get());
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
   * Whether {@code acl} grants {@code perms} to this client. Schemes other than world and digest
   * (sasl, ip, x509) cannot be judged here, so they count as granting: the server decides.
   */
  boolean grants(List<ACL> acl, int perms) {
    int granted = 0;
    for (ACL entry : acl) {
      Id id = entry.getId();
      boolean ours = switch (id.getScheme()) {
        case "world" -> "anyone".equals(id.getId());
        case "digest" -> credentials.map(c -> idOf(c).equals(id)).orElse(false);
        default -> true;
      };
      if (ours) {
        granted |= entry.getPerms();
      }
    }
    return (granted & perms) == perms;
  }
}
