package io.amlease.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A kerberized Hadoop for a {@link YarnZkCluster}, on loopback: a MiniKdc, HDFS (a MiniDFSCluster)
 * as the staging filesystem, so that delegation tokens are real HDFS tokens, and a Kerberos
 * ZooKeeper. Every Hadoop service logs in as hadoop/localhost (its web side as HTTP/localhost),
 * ZooKeeper's server as zookeeper/localhost; applications are submitted by the user amlease,
 * logged in from its own keytab ({@link #asUser}). The JVM's JAAS configuration has the server's
 * section and {@link #USER_LOGIN_CONTEXT} for the test's own SASL clients, and no Client section,
 * so that the test's other ZooKeeper clients stay anonymous. UGI's and JAAS's settings are
 * JVM-wide: a test class that uses this runs in a JVM of its own (failsafe's "secure" execution,
 * which also enables ZooKeeper's SASL provider).
 */
final class SecureHadoop implements AutoCloseable {
  static final String USER = "amlease";
  /** The JAAS login context in which the test logs in to ZooKeeper as {@link #USER}. */
  static final String USER_LOGIN_CONTEXT = "AmleaseUser";
  /**
   * HDFS delegation tokens' maximum lifetime here (7 days by default), so that "longer than the
   * tokens live" takes half a minute; renewed (by the RM) every half of it.
   */
  static final java.time.Duration TOKEN_MAX_LIFETIME = java.time.Duration.ofSeconds(30);
  private final MiniKdc kdc;
  private final File serviceKeytab;
  private final File userKeytab;
  private MiniDFSCluster dfs;

  private SecureHadoop(MiniKdc kdc, File serviceKeytab, File userKeytab) {
    this.kdc = kdc;
    this.serviceKeytab = serviceKeytab;
    this.userKeytab = userKeytab;
  }

  /** The realm and its principals. */
  static SecureHadoop start() throws Exception {
    Path dir = Files.createTempDirectory("amlease-secure-hadoop");
    MiniKdc kdc = new MiniKdc(MiniKdc.createConf(), dir.toFile());
    kdc.start();
    File service = dir.resolve("hadoop.keytab").toFile();
    File user = dir.resolve(USER + ".keytab").toFile();
    kdc.createPrincipal(service, "hadoop/localhost", "HTTP/localhost");
    kdc.createPrincipal(user, USER);
    File zk = dir.resolve("zookeeper.keytab").toFile();
    kdc.createPrincipal(zk, "zookeeper/localhost");
    AppConfigurationEntry[] server = krb5(zk, "zookeeper/localhost@" + kdc.getRealm(), false);
    AppConfigurationEntry[] client = krb5(user, USER + "@" + kdc.getRealm(), true);
    javax.security.auth.login.Configuration.setConfiguration(
        new javax.security.auth.login.Configuration() {
          @Override
          public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
            return "Server".equals(name) ? server : USER_LOGIN_CONTEXT.equals(name) ? client
                : null;
          }
        });
    // The server's principal, not one built from whatever name 127.0.0.1 resolves to here.
    System.setProperty("zookeeper.server.principal", "zookeeper/localhost@" + kdc.getRealm());
    return new SecureHadoop(kdc, service, user);
  }

  private static AppConfigurationEntry[] krb5(File keytab, String principal, boolean initiator) {
    return new AppConfigurationEntry[] {new AppConfigurationEntry(
        "com.sun.security.auth.module.Krb5LoginModule", LoginModuleControlFlag.REQUIRED,
        Map.of("useKeyTab", "true", "keyTab", keytab.getAbsolutePath(), "principal", principal,
            "storeKey", "true", "useTicketCache", "false", "doNotPrompt", "true",
            "isInitiator", Boolean.toString(initiator)))};
  }

  String realm() {
    return kdc.getRealm();
  }

  File krb5Conf() {
    return kdc.getKrb5conf();
  }

  File userKeytab() {
    return userKeytab;
  }

  String userPrincipal() {
    return USER + "@" + realm();
  }

  /** Kerberos for every service of {@code conf}, before any of them starts. */
  void configure(Configuration conf) {
    String service = "hadoop/localhost@" + realm();
    String http = "HTTP/localhost@" + realm();
    String keytab = serviceKeytab.getAbsolutePath();
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set("dfs.namenode.kerberos.principal", service);
    conf.set("dfs.namenode.keytab.file", keytab);
    conf.set("dfs.datanode.kerberos.principal", service);
    conf.set("dfs.datanode.keytab.file", keytab);
    conf.set("dfs.web.authentication.kerberos.principal", http);
    conf.set("dfs.web.authentication.kerberos.keytab", keytab);
    conf.setBoolean("dfs.block.access.token.enable", true);
    conf.setLong("dfs.namenode.delegation.token.max-lifetime", TOKEN_MAX_LIFETIME.toMillis());
    conf.setLong("dfs.namenode.delegation.token.renew-interval",
        TOKEN_MAX_LIFETIME.dividedBy(2).toMillis());
    // SASL on the data transfer protocol instead of privileged ports for the DataNode.
    conf.set("dfs.data.transfer.protection", "authentication");
    conf.set("dfs.http.policy", "HTTP_ONLY");
    conf.setBoolean("ignore.secure.ports.for.testing", true);
    // As production RMs for long-running applications: the RM may obtain HDFS tokens for an
    // application's user once the submitted ones near their maximum lifetime (YARN-2704), and
    // NodeManagers localize a later AM attempt with them; the NameNode lets the RM's user act
    // for others.
    conf.setBoolean("yarn.resourcemanager.proxy-user-privileges.enabled", true);
    // The RM replaces an application's HDFS tokens instead of renewing them once their maximum
    // date is this close (3 h by default, more than the whole lifetime here): the copies the AM
    // and its workers hold would then die a renew interval after submission.
    conf.setLong("yarn.resourcemanager.system-credentials.valid-time-remaining", 5_000);
    conf.set("hadoop.proxyuser.hadoop.hosts", "*");
    conf.set("hadoop.proxyuser.hadoop.groups", "*");
    conf.set("yarn.resourcemanager.principal", service);
    conf.set("yarn.resourcemanager.keytab", keytab);
    conf.set("yarn.nodemanager.principal", service);
    conf.set("yarn.nodemanager.keytab", keytab);
    conf.set("yarn.resourcemanager.webapp.spnego-principal", http);
    conf.set("yarn.resourcemanager.webapp.spnego-keytab-file", keytab);
    conf.set("yarn.nodemanager.webapp.spnego-principal", http);
    conf.set("yarn.nodemanager.webapp.spnego-keytab-file", keytab);
    UserGroupInformation.setConfiguration(conf);
  }

  /**
   * Starts HDFS with {@code conf} and makes it the default filesystem there, with a home directory
   * for {@link #USER} (where submit stages).
   */
  void startDfs(Configuration conf) throws Exception {
    dfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    dfs.waitActive();
    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path home = new org.apache.hadoop.fs.Path("/user/" + USER);
    fs.mkdirs(home, new FsPermission((short) 0755));
    fs.setOwner(home, USER, USER);
    conf.set(FileSystem.FS_DEFAULT_NAME_KEY, fs.getUri().toString());
  }

  /** {@code action} as {@link #USER}, logged in from its keytab. */
  <T> T asUser(PrivilegedExceptionAction<T> action) throws Exception {
    return UserGroupInformation.loginUserFromKeytabAndReturnUGI(userPrincipal(),
        userKeytab.getAbsolutePath()).doAs(action);
  }

  @Override
  public void close() {
    if (dfs != null) {
      dfs.shutdown();
    }
    kdc.stop();
  }
}
