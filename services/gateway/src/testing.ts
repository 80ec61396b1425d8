// What tools outside this service use of its insides (`@checkout/gateway/testing`): the contract tests run its
// clients of the other services and read its public route table. Never imported by what ships.
export { createUpstreams, type Upstreams } from './clients/upstreams';
export { PUBLIC_ROUTES } from './http/public-routes';
