package io.amlease.am.master;

import io.amlease.am.AmSettings;
import java.nio.file.Path;
import org.apache.hadoop.security.authentication.util.JaasConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's Kerberos identity, from the keytab shipped with it ({@code submit --principal
 * --keytab}): the JAAS login context the lease's ZooKeeper client authenticates with (SASL), as
 * Hadoop's own ZooKeeper clients do it (hadoop-auth's {@link JaasConfiguration}: a
 * {@code Krb5LoginModule} section from the keytab, every other section from the JVM's JAAS
 * configuration, if any). The container needs no JAAS file.
 */
final class KeytabLogin {
  private static final Logger LOG = LoggerFactory.getLogger(KeytabLogin.class);

  private KeytabLogin() {}

  /**
   * Installs the login context, when the lease is SASL-protected (the application then has a
   * keytab); else does nothing: a JVM-wide Client section would make every ZooKeeper client of the
   * AM try Kerberos.
   */
  static void install(AmSettings s) {
    if (s.keytab().isEmpty() || s.lease().saslPrincipal().isEmpty()) {
      return;
    }
    String keytab = Path.of(s.keytab()).toAbsolutePath().toString();
    javax.security.auth.login.Configuration.setConfiguration(
        new JaasConfiguration(s.lease().saslLoginContext(), s.principal(), keytab));
    LOG.info("JAAS login context '{}': {} from its keytab {}", s.lease().saslLoginContext(),
        s.principal(), keytab);
  }
}
