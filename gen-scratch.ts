import { settingsTable } from '@/lib/settings';
console.log(settingsTable());
