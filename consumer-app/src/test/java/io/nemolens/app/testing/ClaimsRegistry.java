package io.nemolens.app.testing;

/** The PostgreSQL server of every development and CI machine, where tests keep claim registries (trust auth). */
public final class ClaimsRegistry {

    public static final String URL =
            System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String USER = System.getProperty("lens.test.postgres.user", "postgres");

    private ClaimsRegistry() {}
}
