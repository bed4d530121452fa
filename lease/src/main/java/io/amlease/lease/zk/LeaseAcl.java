package io.amlease.lease.zk;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.api.ACLProvider;
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
  private final Optional<Credentials> credentials;

  record Credentials(String user, String password) {
    Id id() {
      try {
        return new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":" + password));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA1 not available", e);
      }
    }

    AuthInfo authInfo() {
      return new AuthInfo("digest", (user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
  }

  LeaseAcl(LeasePaths paths, Optional<Credentials> credentials) {
    this.paths = paths;
    this.credentials = credentials;
  }

  /**
   * Reads {@code user:password} (one line) from {@code file}; credentials never come from a command
   * line, where {@code ps} would show them.
   */
  static Credentials load(Path file) {
    String key = LeaseConfig.ACL_CREDENTIALS;
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new LeaseConfigException(key, key + ": cannot read credentials file " + file + ": " + e);
    }
    int colon = text.indexOf(':');
    if (colon < 1 || colon == text.length() - 1 || text.contains("\n")) {
      throw new LeaseConfigException(key, key + ": " + file
          + " must hold one line 'user:password' (digest credentials)");
    }
    return new Credentials(text.substring(0, colon), text.substring(colon + 1));
  }

  Optional<Credentials> credentials() {
    return credentials;
  }

  /** The ACL for lease nodes. */
  List<ACL> leaseAcl() {
    return credentials.map(c -> List.of(new ACL(ZooDefs.Perms.ALL, c.id()),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
        .orElse(ZooDefs.Ids.OPEN_ACL_UNSAFE);
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
        case "digest" -> credentials.map(c -> c.id().equals(id)).orElse(false);
        default -> true;
      };
      if (ours) {
        granted |= entry.getPerms();
      }
    }
    return (granted & perms) == perms;
  }
}
