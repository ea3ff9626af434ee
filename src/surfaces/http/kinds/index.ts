/** Every resource kind served by `noema serve`: one import line per kind module. */
import './sources.ts';
import './runs.ts';
import './worlds.ts';
import './agents.ts';
import './flowcharts.ts';
import './memory.ts';
