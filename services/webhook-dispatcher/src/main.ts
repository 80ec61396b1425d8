// The only file of this service that reads process.env.
import { runService } from '@checkout/service';
import { parseConfig } from './config';
import { buildApp } from './app';

runService('webhook-dispatcher', process.env, parseConfig, buildApp);
