package io.nemolens.app;

import io.nemolens.app.cli.LensCommandLine;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Consumes OTLP telemetry from RabbitMQ and hands decoded records to {@code SignalHandler} beans. */
@SpringBootApplication
public class LensConsumerApplication {

    public static void main(String[] args) {
        if (LensCommandLine.isCommand(args)) {
            System.exit(LensCommandLine.run(LensConsumerApplication.class, args, System.out));
        }
        SpringApplication.run(LensConsumerApplication.class, args);
    }
}
