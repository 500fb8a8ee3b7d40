import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';

/** Provides the system clock as `Clock`; tests override the provider with a `FakeClock`. */
@Global()
@Module({ providers: [{ provide: Clock, useClass: SystemClock }], exports: [Clock] })
export class ClockModule {}
