package com.example.lens.archived;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A user's application that keeps the built-in archive: with {@code lens-archive} on the class path every
 * record is also written to Parquet under {@code lens.archive.path}, and the handlers are its components.
 */
@SpringBootApplication
public class ArchivingApplication {

    public static void main(String[] args) {
        SpringApplication.run(ArchivingApplication.class, args);
    }
}
