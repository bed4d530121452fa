package io.amlease.am.master;

import io.amlease.am.AmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's Kerberos login to ZooKeeper, from the keytab shipped with it ({@code submit
 * --principal --keytab}), for a SASL-protected lease: a JAAS file in the container's working
 * directory with one {@code Krb5LoginModule} section (named by the lease's login context) for the
 * keytab, made this JVM's JAAS configuration (not through {@code java.security.auth.login.config},
 * which would make ZooKeeper's other clients here insist on a Client section) and passed to the
 * {@code amlease publish} the master runs ({@link #jaasFile}). The container needs no JAAS file of
 * its own.
 */
final class KeytabLogin {
  private static final Logger LOG = LoggerFactory.getLogger(KeytabLogin.class);

  private KeytabLogin() {}

  /**
   * Installs the login context when the lease is SASL-protected (the application then has a
   * keytab); else does nothing: a JVM-wide Client section would make every ZooKeeper client of the
   * AM try Kerberos.
   */
  static void install(AmSettings s) throws IOException {
    java.util.Optional<Path> jaas = jaasFile(s);
    if (jaas.isEmpty()) {
      return;
    }
    String keytab = Path.of(s.keytab()).toAbsolutePath().toString();
    Path file = jaas.get();
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, section(s.lease().saslLoginContext(), s.principal(), keytab));
    javax.security.auth.login.Configuration.setConfiguration(
        new com.sun.security.auth.login.ConfigFile(file.toUri()));
    LOG.info("JAAS login context '{}': {} from its keytab {} ({})", s.lease().saslLoginContext(),
        s.principal(), keytab, file);
  }

  /** The JAAS file, for a SASL-protected lease (the application then has a keytab). */
  static java.util.Optional<Path> jaasFile(AmSettings s) {
    return s.keytab().isEmpty() || s.lease().saslPrincipal().isEmpty() ? java.util.Optional.empty()
        : java.util.Optional.of(Path.of(AmSettings.JAAS_FILE).toAbsolutePath());
  }

  /** A JAAS section for a keytab login (AmSettings keeps quotes out of the values). */
  static String section(String context, String principal, String keytab) {
    return context + " {\n"
        + "  com.sun.security.auth.module.Krb5LoginModule required\n"
        + "  useKeyTab=true\n"
        + "  keyTab=\"" + keytab + "\"\n"
        + "  principal=\"" + principal + "\"\n"
        + "  storeKey=true\n"
        + "  useTicketCache=false\n"
        + "  doNotPrompt=true\n"
        + "  refreshKrb5Config=true;\n"
        + "};\n";
  }
}
